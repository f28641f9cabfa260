package protocol

import (
	"bytes"
	"crypto/sha1"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/agora-registry/registry/internal/apperr"
)

// Run one with: go test -run '^$' -fuzz FuzzParseDigest -fuzztime 60s ./internal/protocol/
// Inputs that once failed live in testdata/fuzz/ and run with every go test.

func FuzzParseDigest(f *testing.F) {
	for _, v := range loadHashVectors(f) {
		f.Add(v.Hex)
		f.Add(strings.ToUpper(v.Hex))
		f.Add(v.Base64)
		f.Add(strings.TrimSuffix(v.Base64, "="))
		f.Add(strings.NewReplacer("+", "-", "/", "_").Replace(v.Base64))
		f.Add(strings.ReplaceAll(v.Base64, "+", " "))
	}
	for _, s := range []string{"", "=", "qZk+NkcGgWq6PiVxeFDCbJzQ2J1=", "qZk+NkcGgWq6PiVxeFDCbJzQ2J==",
		"qZk+NkcGgWq6PiV\nFDCbJzQ2J0=", "qZk%2BNkcGgWq6PiVxeFDCbJzQ2J0%3D", strings.Repeat("é", 20)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDigest(s)
		if err != nil {
			if !errors.Is(err, ErrMalformedDigest) || !utf8.ValidString(err.Error()) {
				t.Fatalf("ParseDigest(%q): error %q is not a clean ErrMalformedDigest", s, err)
			}
			return
		}
		for _, spelling := range []string{d.Hex(), d.Base64()} {
			if back, err := ParseDigest(spelling); err != nil || back != d {
				t.Fatalf("ParseDigest(%q) = %s, but its spelling %q reads as %s, %v", s, d, spelling, back, err)
			}
		}
		// Every accepted input is one of the documented spellings of d.
		b64 := d.Base64()
		urlSafe := strings.NewReplacer("+", "-", "/", "_").Replace(b64)
		switch strings.ReplaceAll(s, " ", "+") {
		case b64, strings.TrimSuffix(b64, "="), urlSafe, strings.TrimSuffix(urlSafe, "="):
		default:
			if !strings.EqualFold(s, d.Hex()) {
				t.Fatalf("ParseDigest accepted %q, which is no documented spelling of %s", s, d)
			}
		}
	})
}

func FuzzParseMetadata(f *testing.F) {
	for _, doc := range metadataSeeds(f) {
		f.Add(doc)
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		m, lints := ParseMetadata(doc)
		checkMetadata(t, doc, m, lints)
		// The task match's lean reader agrees with the whole reading.
		if qs := RepresentativeQueries(doc); !slices.Equal(qs, m.RepresentativeQueries) {
			t.Fatalf("RepresentativeQueries(%q) = %q, ParseMetadata has %q", doc, qs, m.RepresentativeQueries)
		}
	})
}

func FuzzPrepare(f *testing.F) {
	for _, doc := range metadataSeeds(f) {
		f.Add(doc)
	}
	f.Add(readTestdata(f, "shattered-1-prefix.bin"))
	f.Add([]byte("a\x00b"))
	f.Add([]byte("\xff"))
	f.Fuzz(func(t *testing.T, doc []byte) {
		const limit = 4096
		prepared, err := Prepare(doc, limit)
		if err != nil {
			e := apperr.As(err)
			if e == nil || e.Code == "" || !utf8.ValidString(e.Message) {
				t.Fatalf("Prepare(%q): unclassified error %v", doc, err)
			}
			if Validate(doc, limit) == nil && !errors.Is(err, ErrCollisionAttack) && !errors.Is(err, ErrFrontMatterTooLarge) {
				t.Fatalf("Prepare(%q) refused a valid document: %v", doc, err)
			}
			return
		}
		if err := Validate(doc, limit); err != nil {
			t.Fatalf("Prepare(%q) accepted what Validate refuses: %v", doc, err)
		}
		if !bytes.Equal(prepared.Content, doc) {
			t.Fatalf("Prepare changed the bytes: %q -> %q", doc, prepared.Content)
		}
		if prepared.Sums.SHA1 != Digest(sha1.Sum(doc)) {
			t.Fatalf("Prepare(%q): SHA-1 %s, crypto/sha1 says %x", doc, prepared.Sums.SHA1, sha1.Sum(doc))
		}
		checkMetadata(t, doc, prepared.Metadata, prepared.Lints)
	})
}

func FuzzSplitFrontMatter(f *testing.F) {
	for _, doc := range metadataSeeds(f) {
		f.Add(doc)
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		block, body, ok := SplitFrontMatter(doc)
		if !ok {
			if block != nil || !bytes.Equal(body, doc) {
				t.Fatalf("no front matter, yet block %q and body %q", block, body)
			}
			return
		}
		// doc is: opening line, block, closing line, body.
		first, rest, _ := cutLine(doc)
		if !isMarkerLine(first, "---") || !bytes.HasPrefix(rest, block) || !bytes.HasSuffix(rest, body) {
			t.Fatalf("SplitFrontMatter(%q) = %q, %q: not pieces of the document", doc, block, body)
		}
		closing, after, _ := cutLine(rest[len(block):])
		if !(isMarkerLine(closing, "---") || isMarkerLine(closing, "...")) || !bytes.Equal(after, body) {
			t.Fatalf("SplitFrontMatter(%q): no closing marker between block %q and body %q", doc, block, body)
		}
	})
}

func FuzzNormaliseTags(f *testing.F) {
	for _, s := range []string{"Weather Data", "c#", "İstanbul", "ǅ", "ß", "--x--", "a\u0301", "\xff", strings.Repeat("ab ", 30)} {
		f.Add(s, "weather")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		tags := NormaliseTags([]string{a, b, a + " " + b})
		checkTags(t, tags)
	})
}

// checkMetadata asserts what every caller may rely on, whatever the input.
func checkMetadata(t *testing.T, doc []byte, m Metadata, lints []Lint) {
	t.Helper()
	checkText(t, "title", m.Title, MaxTitleRunes, false)
	checkText(t, "description", m.Description, MaxDescriptionRunes, true)
	checkText(t, "version", m.Version, MaxShortFieldRunes, false)
	checkText(t, "license", m.License, MaxShortFieldRunes, false)
	if len(m.Authors) > MaxAuthors {
		t.Fatalf("%d authors", len(m.Authors))
	}
	for _, a := range m.Authors {
		if a == "" {
			t.Fatal("an empty author")
		}
		checkText(t, "author", a, MaxShortFieldRunes, false)
	}
	if m.Tags == nil {
		t.Fatal("nil tags")
	}
	checkTags(t, m.Tags)
	if m.FrontMatter != ReadLikeSDK(doc).Readable() {
		t.Fatal("FrontMatter is not whether the SDK reads the document")
	}
	known := map[string]bool{LintNoFrontMatter: true, LintInvalidFrontMatter: true, LintMissingTitle: true,
		LintMissingDescription: true, LintInvalidField: true, LintTruncated: true, LintFrontMatterTooLarge: true,
		LintSDKName: true, LintSDKDescription: true, LintSDKMultiround: true, LintSDKUnchecked: true}
	for _, l := range lints {
		if !known[l.Code] || !utf8.ValidString(l.Message) || l.Message == "" {
			t.Fatalf("bad lint %+v", l)
		}
	}
}

func checkText(t *testing.T, field, s string, maxRunes int, multiline bool) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Fatalf("%s %q is not valid UTF-8", field, s)
	}
	if n := utf8.RuneCountInString(s); n > maxRunes {
		t.Fatalf("%s has %d runes, over the limit of %d", field, n, maxRunes)
	}
	if strings.TrimSpace(s) != s {
		t.Fatalf("%s %q has blanks at its ends", field, s)
	}
	for _, r := range s {
		if unicode.IsControl(r) && !(multiline && r == '\n') {
			t.Fatalf("%s %q contains control character %U", field, s, r)
		}
	}
}

func checkTags(t *testing.T, tags []string) {
	t.Helper()
	if len(tags) > MaxTags {
		t.Fatalf("%d tags", len(tags))
	}
	if again := NormaliseTags(tags); !reflect.DeepEqual(again, tags) {
		t.Fatalf("tags %q are not normalised: again %q", tags, again)
	}
	for _, tag := range tags {
		if tag == "" || utf8.RuneCountInString(tag) > MaxTagRunes || strings.ContainsFunc(tag, unicode.IsSpace) {
			t.Fatalf("bad tag %q", tag)
		}
	}
}

func metadataSeeds(f *testing.F) [][]byte {
	seeds := [][]byte{
		[]byte("---\nname: Weather\ndescription: d\nmultiround: yes\ntags: [a, B c]\nversion: 1\nsupersedes: qZk+NkcGgWq6PiVxeFDCbJzQ2J0=\nauthors: [x]\nlicense: MIT\n---\n# H\n\nP.\n"),
		[]byte("---\r\ntitle: T\r\ntags: a, b\r\n...\r\nbody"),
		[]byte("---\nname: [a, b]\n---\n"),
		[]byte("---\nname: \"\\0\\x1b\\u202e\"\n---\n"),
		[]byte("---\na: &a [x, x]\nb: &b [*a, *a]\ntags: *b\nname: *a\n---\n"),
		[]byte("# Title #\n\nFirst paragraph\ncontinues.\n\n```\n# code\n```\n"),
		[]byte("Setext\n===\n\n- list\n1. item\n    code\n> quote\n| t |\n"),
		[]byte("---\nunterminated: yes\n"),
		[]byte(billionLaughs("tags")),
	}
	for _, v := range loadHashVectors(f) {
		seeds = append(seeds, []byte(v.Document))
	}
	return seeds
}
