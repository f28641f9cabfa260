package protocol

import (
	"reflect"
	"strings"
	"testing"
)

func TestNormaliseTags(t *testing.T) {
	cases := []struct {
		in, want []string
	}{
		{[]string{"Weather", "weather", " WEATHER "}, []string{"weather"}},
		{[]string{"Weather Data", "weather-data", "weather   data", "weather - data", "weather\tdata"}, []string{"weather-data"}},
		{[]string{"-leading", "trailing-", "--both--"}, []string{"leading", "trailing", "both"}},
		{[]string{"c#", "C++", ".NET", "node.js", "snake_case", "r&d"}, []string{"c", "c++", ".net", "node.js", "snake_case", "rd"}},
		{[]string{"!!!", "---", "", "   ", "...", "_", "#"}, []string{}},
		{[]string{"Ünïcödé", "日本語", "cafe\u0301"}, []string{"ünïcödé", "日本語", "cafe\u0301"}},
		{[]string{"bad\xffutf8"}, []string{"badutf8"}},
		{[]string{"zero\u200bwidth", "bidi\u202eover"}, []string{"zerowidth", "bidiover"}},
		{nil, []string{}},
	}
	for _, c := range cases {
		if got := NormaliseTags(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("NormaliseTags(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestNormaliseTagsLimits(t *testing.T) {
	var many []string
	for i := 0; i < MaxTags+10; i++ {
		many = append(many, "tag"+strings.Repeat("x", i))
	}
	got := NormaliseTags(many)
	if !reflect.DeepEqual(got, many[:MaxTags]) {
		t.Fatalf("got %d tags %q, want the first %d", len(got), got, MaxTags)
	}
	// Duplicates do not use up the allowance.
	dup := append(make([]string, 0, 2*MaxTags), many[:MaxTags-1]...)
	dup = append(dup, many[:MaxTags-1]...)
	dup = append(dup, "last")
	if got := NormaliseTags(dup); len(got) != MaxTags || got[MaxTags-1] != "last" {
		t.Fatalf("duplicates counted against the limit: %q", got)
	}
	long := strings.Repeat("é", MaxTagRunes+5)
	if got := NormaliseTags([]string{long}); !reflect.DeepEqual(got, []string{strings.Repeat("é", MaxTagRunes)}) {
		t.Fatalf("long tag: %q", got)
	}
	// Two long tags equal in their first MaxTagRunes runes become one.
	a, b := strings.Repeat("a", MaxTagRunes)+"1", strings.Repeat("a", MaxTagRunes)+"2"
	if got := NormaliseTags([]string{a, b}); len(got) != 1 {
		t.Fatalf("clipped duplicates kept: %q", got)
	}
}

func TestNormaliseTagsIsIdempotent(t *testing.T) {
	in := []string{"Weather Data", "c#", "İstanbul", "ǅ", "ß", "x--y", strings.Repeat("ab ", 40)}
	once := NormaliseTags(in)
	if twice := NormaliseTags(once); !reflect.DeepEqual(once, twice) {
		t.Fatalf("NormaliseTags(%q) = %q, but again = %q", in, once, twice)
	}
}

// FuzzNormaliseTagShortcut holds the shortcut for tags already in their
// canonical form to the general normalisation.
func FuzzNormaliseTagShortcut(f *testing.F) {
	for _, s := range []string{"weather", "weather-data", "-x", "x-", "a--b", "c++", "._", "_-a", "Weather", "é", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := normaliseTag(s), normaliseAnyTag(s); got != want {
			t.Fatalf("normaliseTag(%q) = %q, want %q", s, got, want)
		}
	})
}
