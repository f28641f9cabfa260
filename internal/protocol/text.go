package protocol

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// CleanTitle applies the rules every title read from a document obeys
// (one line, valid UTF-8, no control characters, at most MaxTitleRunes) to
// a title given beside a document, as the paper-demo publish form does.
func CleanTitle(s string) string {
	return strings.TrimRightFunc(clipRunes(cleanLine(s), MaxTitleRunes), unicode.IsSpace)
}

// CleanDescription is CleanTitle for descriptions: line breaks are kept,
// the limit is MaxDescriptionRunes.
func CleanDescription(s string) string {
	return strings.TrimRightFunc(clipRunes(cleanText(s), MaxDescriptionRunes), unicode.IsSpace)
}

// cleanLine makes text fit for a one-line field (title, version, author):
// valid UTF-8, no control or bidirectional-override characters, every run of
// blanks and line breaks one space, no blanks at the ends. YAML escapes can
// put any character in a value ("\0" is a NUL), and these values end up in
// HTML, JSON and a database that refuses NUL.
func cleanLine(s string) string {
	if isPlainASCIILine(s, true) {
		return s // already clean: skip the copies of cleanAnyLine
	}
	return cleanAnyLine(s)
}

func cleanAnyLine(s string) string {
	return strings.Join(strings.Fields(dropUnsafe(s, false)), " ")
}

// isPlainASCIILine reports whether s is printable ASCII without blanks at
// its ends (and, if singleSpaced, without two blanks in a row): text that
// cleanLine (singleSpaced) or cleanText would return unchanged.
func isPlainASCIILine(s string, singleSpaced bool) bool {
	if s == "" {
		return true
	}
	if s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || singleSpaced && c == ' ' && s[i+1] == ' ' {
			return false
		}
	}
	return true
}

// cleanText is cleanLine for multi-line text (a description): line breaks
// are kept ("\r\n" read as "\n"), blanks at line ends and blank lines at the
// ends are dropped.
func cleanText(s string) string {
	if isPlainASCIILine(s, false) {
		return s // one clean line: skip the copies of cleanAnyText
	}
	return cleanAnyText(s)
}

func cleanAnyText(s string) string {
	lines := strings.Split(dropUnsafe(s, true), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRightFunc(l, unicode.IsSpace)
	}
	return strings.TrimFunc(strings.Join(lines, "\n"), unicode.IsSpace)
}

// dropUnsafe replaces invalid UTF-8 with U+FFFD and control characters
// with a space (keeping '\n' if keepNewlines), and removes the
// bidirectional overrides and isolates that can disguise text.
func dropUnsafe(s string, keepNewlines bool) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' && keepNewlines:
			return r
		case unicode.IsControl(r):
			return ' '
		case 0x202A <= r && r <= 0x202E, 0x2066 <= r && r <= 0x2069:
			return -1
		}
		return r
	}, s)
}

// clipRunes cuts s to at most max runes.
func clipRunes(s string, max int) string {
	n := 0
	for i := range s {
		if n == max {
			return s[:i]
		}
		n++
	}
	return s
}

// clip enforces the metadata length limits (tags are clipped when they are
// normalised).
func (m *Metadata) clip() []Lint {
	var lints []Lint
	cut := func(s *string, max int, field string) {
		if utf8.RuneCountInString(*s) > max {
			*s = strings.TrimRightFunc(clipRunes(*s, max), unicode.IsSpace)
			lints = append(lints, Lint{LintTruncated, fmt.Sprintf("%s is longer than %d characters and was shortened", field, max)})
		}
	}
	cut(&m.Title, MaxTitleRunes, "the title")
	cut(&m.Description, MaxDescriptionRunes, "the description")
	cut(&m.Version, MaxShortFieldRunes, "the version")
	cut(&m.License, MaxShortFieldRunes, "the license")
	if len(m.Authors) > MaxAuthors {
		m.Authors = m.Authors[:MaxAuthors]
		lints = append(lints, Lint{LintTruncated, fmt.Sprintf("only the first %d authors are kept", MaxAuthors)})
	}
	for i := range m.Authors {
		cut(&m.Authors[i], MaxShortFieldRunes, "an author")
	}
	return lints
}
