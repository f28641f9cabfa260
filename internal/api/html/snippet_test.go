package html

import (
	"strings"
	"testing"
)

func TestHighlightEscapesThenMarks(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{`<script>alert("weather")</script>`, `&lt;script&gt;alert(&#34;<mark>weather</mark>&#34;)&lt;/script&gt;`},
		{"Weather forecasts & more", "<mark>Weather</mark> <mark>forecasts</mark> &amp; more"},
		{"mark me <mark>", "mark me &lt;mark&gt;"},
		{"", ""},
	} {
		if got := string(highlight(c.text, []string{"weather", "forecast"})); got != c.want {
			t.Errorf("highlight(%q) = %q, want %q", c.text, got, c.want)
		}
	}
	long := strings.Repeat("filler ", 100) + "the weather word " + strings.Repeat("tail ", 100)
	got := string(matchSnippet(long, []string{"weather"}))
	if !strings.HasPrefix(got, "…") || !strings.HasSuffix(got, "…") || !strings.Contains(got, "<mark>weather</mark>") || len([]rune(got)) > snippetRunes+20 {
		t.Errorf("snippet of a long text = %q", got)
	}
	if matchSnippet("no match here", []string{"weather"}) != "" {
		t.Error("a text without a match has a snippet")
	}
}

func TestBackStackIsBounded(t *testing.T) {
	var b backStack
	for i := range 3 * maxBackPages {
		b = b.push(strings.Repeat("c", i%7))
	}
	if len(b) != maxBackPages || len(b.String()) > maxBackBytes {
		t.Fatalf("stack of %d cursors, %d bytes", len(b), len(b.String()))
	}
	if got := readBackStack(b.String()); len(got) != len(b) || got[len(got)-1] != b[len(b)-1] {
		t.Fatalf("round trip lost cursors: %q", got)
	}
	big := strings.Repeat("x", 1500)
	for range 5 {
		b = b.push(big)
	}
	if len(b.String()) > maxBackBytes {
		t.Fatalf("stack of %d bytes", len(b.String()))
	}
	for _, s := range []string{strings.Repeat("a.", maxBackPages+1), strings.Repeat("a", maxBackBytes+1)} {
		if got := readBackStack(s); got != nil {
			t.Fatalf("readBackStack accepted %d bytes", len(s))
		}
	}
	if prev, rest := (backStack{"", "c1"}).pop(); prev != "c1" || len(rest) != 1 || rest[0] != "" {
		t.Fatalf("pop = %q, %q", prev, rest)
	}
}
