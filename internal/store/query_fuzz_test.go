package store

import (
	"encoding/base64"
	"errors"
	"math"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// Run one with: go test -run '^$' -fuzz FuzzQueryNormalize -fuzztime 30s ./internal/store/
// Inputs that once failed live in testdata/fuzz/ and run with every go test.

// FuzzQueryNormalize feeds hostile search text, tags, sorts and limits to
// Normalize: it must either refuse with ErrInvalid or return a query every
// engine can run (a known sort, a limit within bounds, valid tags).
func FuzzQueryNormalize(f *testing.F) {
	for _, s := range []string{"", "weather", "weather forecast", `"; DROP TABLE documents; --`,
		"a* OR b NEAR(c) -d ^e", "title:x AND (y | z) & !w <-> v", "\x00", "\xff\xfe", "é日本語🙂",
		strings.Repeat("a ", 300), strings.Repeat("ß", MaxQueryRunes+1), "'", `\`, "%_"} {
		f.Add(s, "weather", "", 0)
	}
	f.Add("x", "", "relevance", 5)
	f.Add("", "UPPER Tag", "name", -1)
	f.Add("", "tag,with,commas", "bogus", 1<<30)
	f.Add("", "\x00", "newest", 100)
	f.Fuzz(func(t *testing.T, text, tag, sort string, limit int) {
		q := Query{Text: text, Sort: Sort(sort), Limit: limit}
		if tag != "" {
			q.Tags = strings.Split(tag, ",")
		}
		n, err := q.Normalize()
		if err != nil {
			if !errors.Is(err, ErrInvalid) || !utf8.ValidString(err.Error()) {
				t.Fatalf("Normalize(%+v): error %q is not a clean ErrInvalid", q, err)
			}
			return
		}
		switch n.Sort {
		case SortNewest, SortName:
		case SortRelevance:
			if len(Terms(n.Text)) == 0 {
				t.Fatalf("relevance sort without terms for %q", n.Text)
			}
		default:
			t.Fatalf("Normalize let through sort %q", n.Sort)
		}
		if n.Limit < 1 || n.Limit > MaxPageSize {
			t.Fatalf("Normalize let through limit %d", n.Limit)
		}
		if len(n.Tags) > MaxFilterTags {
			t.Fatalf("Normalize let through %d tags", len(n.Tags))
		}
		for _, tg := range n.Tags {
			if tg == "" || !utf8.ValidString(tg) || strings.ContainsRune(tg, 0) {
				t.Fatalf("Normalize let through tag %q", tg)
			}
		}
		// Normalising is idempotent: engines may call it again.
		again, err := n.Normalize()
		if err != nil || again.Sort != n.Sort || again.Limit != n.Limit || strings.Join(again.Tags, ",") != strings.Join(n.Tags, ",") {
			t.Fatalf("Normalize is not idempotent: %+v then %+v, %v", n, again, err)
		}
	})
}

// FuzzTerms checks that nothing but letters and digits ever reaches an
// engine's full-text query language, and never more than MaxQueryTerms words.
func FuzzTerms(f *testing.F) {
	for _, s := range []string{"", "a b", `"quoted" phrase*`, "NEAR(a b, 3)", "x:y", "a-b_c.d", "İstanbul ǅ", "\xff", "١٢٣", strings.Repeat("w ", 50)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		terms := Terms(s)
		if len(terms) > MaxQueryTerms {
			t.Fatalf("Terms(%q) returned %d words", s, len(terms))
		}
		for _, w := range terms {
			if w == "" {
				t.Fatalf("Terms(%q) returned an empty word", s)
			}
			for _, r := range w {
				if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
					t.Fatalf("Terms(%q) let through %q in %q", s, r, w)
				}
			}
		}
	})
}

// FuzzDecodeCursor tampers with cursors: any string must decode to a
// well-formed cursor of the same query, or be refused as ErrInvalidCursor.
// A cursor encoded for a query always decodes back for that query.
func FuzzDecodeCursor(f *testing.F) {
	base := Query{Text: "weather", Sort: SortRelevance, Limit: 10}
	good := base.EncodeCursor(Cursor{Rank: 1.5, Hex: strings.Repeat("ab", 20)})
	f.Add(good, "weather", "relevance", int64(0), "", 1.5)
	f.Add(good[:len(good)-1], "weather", "relevance", int64(0), "", 0.0)
	f.Add(good, "other", "relevance", int64(0), "", 0.0)
	f.Add(base64.RawURLEncoding.EncodeToString([]byte(`{"s":"newest","q":0,"h":"zz"}`)), "", "newest", int64(-1), "", 0.0)
	f.Add(base64.RawURLEncoding.EncodeToString([]byte(`{"s":"name","q":1,"n":"\u0000","h":"`+strings.Repeat("0", 40)+`"}`)), "", "name", int64(0), "\x00", 0.0)
	f.Add(strings.Repeat("A", 4096), "", "newest", int64(0), "", 0.0)
	f.Add("!!!", "", "newest", int64(1), "x", 0.0)
	f.Fuzz(func(t *testing.T, cursor, text, sort string, tm int64, name string, rank float64) {
		q, err := Query{Text: text, Sort: Sort(sort)}.Normalize()
		if err != nil {
			return
		}
		q.Cursor = cursor
		c, ok, err := q.DecodeCursor()
		switch {
		case err != nil:
			if !errors.Is(err, ErrInvalidCursor) {
				t.Fatalf("DecodeCursor(%q): error %v is not ErrInvalidCursor", cursor, err)
			}
		case cursor == "" && ok:
			t.Fatalf("the empty cursor decoded as present")
		case ok:
			if c.Sort != q.Sort || len(c.Hex) != 40 {
				t.Fatalf("DecodeCursor(%q) let through %+v", cursor, c)
			}
		}
		// Round trip of an honest cursor built from the fuzzed key values.
		if !utf8.ValidString(name) || math.IsNaN(rank) || math.IsInf(rank, 0) {
			return // JSON cannot carry these; engines never make them
		}
		honest := Cursor{Time: tm, Name: name, Rank: rank, Hex: strings.Repeat("0f", 20)}
		q.Cursor = q.EncodeCursor(honest)
		if len(q.Cursor) > 2048 {
			return // longer than any key the engines make (MaxTitleRunes)
		}
		back, ok, err := q.DecodeCursor()
		if err != nil || !ok || back.Time != tm || back.Name != name || back.Hex != honest.Hex || back.Rank != rank {
			t.Fatalf("honest cursor %+v did not round-trip: %+v, %v, %v", honest, back, ok, err)
		}
	})
}
