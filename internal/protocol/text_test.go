package protocol

import (
	"strings"
	"testing"
)

func TestCleanTitleAndDescription(t *testing.T) {
	cases := []struct{ in, title, description string }{
		{"  plain  ", "plain", "plain"},
		{"a\x00b\x1bc", "a b c", "a b c"},
		{"line one\r\n\r\n  line two \n", "line one line two", "line one\n\n  line two"}, // indentation inside kept
		{"bad\xffutf8", "bad\uFFFDutf8", "bad\uFFFDutf8"},
		{"evil\u202Etxt.exe\u2066", "eviltxt.exe", "eviltxt.exe"},
		{"tab\there", "tab here", "tab here"},
		{"", "", ""},
	}
	for _, c := range cases {
		if got := CleanTitle(c.in); got != c.title {
			t.Errorf("CleanTitle(%q) = %q, want %q", c.in, got, c.title)
		}
		if got := CleanDescription(c.in); got != c.description {
			t.Errorf("CleanDescription(%q) = %q, want %q", c.in, got, c.description)
		}
	}
	long := strings.Repeat("word ", MaxDescriptionRunes)
	if got := CleanTitle(long); len([]rune(got)) > MaxTitleRunes || strings.HasSuffix(got, " ") {
		t.Errorf("CleanTitle of a long text: %d runes, %q at the end", len([]rune(got)), got[len(got)-3:])
	}
	if got := CleanDescription(long); len([]rune(got)) > MaxDescriptionRunes || strings.HasSuffix(got, " ") {
		t.Errorf("CleanDescription of a long text: %d runes", len([]rune(got)))
	}
}

// FuzzCleanShortcut holds the shortcut for text that is already clean to
// the general cleaning.
func FuzzCleanShortcut(f *testing.F) {
	for _, s := range []string{"plain", " plain", "plain ", "two  spaces", "tab\there", "é", "a\nb", "\x7f", "", " "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := cleanLine(s), cleanAnyLine(s); got != want {
			t.Fatalf("cleanLine(%q) = %q, want %q", s, got, want)
		}
		if got, want := cleanText(s), cleanAnyText(s); got != want {
			t.Fatalf("cleanText(%q) = %q, want %q", s, got, want)
		}
	})
}
