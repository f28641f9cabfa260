package postgres

import (
	"context"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/store/storetest"
	"github.com/agora-registry/registry/internal/testing/pgtest"
)

func TestDistinctWordsKeepsFirstOccurrences(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"one", "one"},
		{"a b a  c\tb\r\nd", "a b c d"},
		{"Word word WORD word.", "Word word WORD word."},
		{"  leading and trailing  ", "leading and trailing"},
		{"no <b>dedup</b> with tags: a a", "no <b>dedup</b> with tags: a a"},
		{"unicode\u00a0space stays\u00a0inside words words", "unicode\u00a0space stays\u00a0inside words"},
	} {
		if got := distinctWords(c.in); got != c.want {
			t.Errorf("distinctWords(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// PostgreSQL must find the same lexemes in a body's distinct words as in
// the body, or search would answer differently.
func TestDistinctWordsYieldTheBodysLexemes(t *testing.T) {
	s, err := Open(context.Background(), pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	samples := []string{
		"Visit https://example.com/a/b?x=1&y=2 or http://example.com/a/b?x=1 and mail user@example.com, user@example.com.",
		"Hyphenated well-known well-known self-contained co-op e-mail e-mail x-ray-vision.",
		"Versions 1.2.3 1.2.3-beta v2 2.0 -5 +5 -5.5 1e10 0x1F 3.14159 3,14 1,000,000.",
		"Paths /usr/local/bin /usr/local/bin/ ./run.sh ../up C:\\Windows\\path file.tar.gz file.tar.gz",
		"Code: foo.bar() foo.bar(x) a_b a_b __init__ C++ C# f(x)=y x=y; x=y; don't don't it's",
		"Entities &amp; &lt; &#39; &amp; and [links](http://a.example/b) [links](http://a.example/b)",
		"Unicode: Prévisions météo 天気 Über über ÜBER naïve naïve façade e\u0301 e\u0301 🌦️ 🌦️",
		"Markdown **bold** **bold** _it_ _it_ `code` `code` # Heading\n## Heading\n- item\n- item\n1. one\n1. one",
		"Punctuation... end. end! end? (paren) (paren) \"quoted\" \"quoted\" 'single' 'single' a/b a/b a|b",
		"Mixed-case HTTP http Http; JSON json; the The THE; stems running runs ran runner",
		"tabs\tand\vvertical\ftabs\r\nand CRLF\r\nlines\r\nlines",
	}
	for i := range 50 {
		samples = append(samples, string(storetest.GenerateDocument(i)))
	}
	ctx := context.Background()
	for _, body := range samples {
		var same bool
		words := distinctWords(bodyText([]byte(body)))
		if err := s.pool.QueryRow(ctx, `SELECT tsvector_to_array(to_tsvector(`+textSearchConfig+`, $1::text))
			= tsvector_to_array(to_tsvector(`+textSearchConfig+`, $2::text))`, body, words).Scan(&same); err != nil {
			t.Fatal(err)
		}
		if !same {
			t.Errorf("other lexemes from the distinct words of %q:\n%q", body, words)
		}
		if !strings.Contains(body, "<") { // a body with '<' is returned whole
			seen := map[string]bool{}
			for _, w := range strings.Fields(words) {
				if seen[w] {
					t.Errorf("distinctWords kept %q twice in %q", w, words)
					break
				}
				seen[w] = true
			}
		}
	}
}
