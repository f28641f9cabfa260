package protocol

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// NormaliseTags applies the tag rules to tags given outside a document (for
// example beside it in a publish request): see normaliseTags.
func NormaliseTags(tags []string) []string {
	out, _ := normaliseTags(tags)
	return out
}

// normaliseTags turns free-form tags into their canonical form, so "Weather
// Data" and "weather-data" are one tag: lower case; letters, marks, digits
// and "-_.+" only; blank runs and hyphen runs become one '-'; no '-' at the
// ends; at most MaxTagRunes runes; no duplicates; at most MaxTags tags. A
// tag with no letter or digit is dropped. What had to be cut is reported as
// lints.
func normaliseTags(tags []string) ([]string, []Lint) {
	var lints []Lint
	seen := make(map[string]bool, len(tags))
	out := []string{}
	clipped := false
	for _, raw := range tags {
		t := normaliseTag(raw)
		if utf8.RuneCountInString(t) > MaxTagRunes {
			// Normalising again drops a '-' or a meaningless rest left at the cut.
			t = normaliseTag(clipRunes(t, MaxTagRunes))
			clipped = true
		}
		if t == "" || seen[t] {
			continue
		}
		if len(out) == MaxTags {
			lints = append(lints, Lint{LintTruncated, fmt.Sprintf("only the first %d tags are kept", MaxTags)})
			break
		}
		seen[t] = true
		out = append(out, t)
	}
	if clipped {
		lints = append(lints, Lint{LintTruncated, fmt.Sprintf("tags longer than %d characters were shortened", MaxTagRunes)})
	}
	return out, lints
}

// normaliseTag is the canonical form of one tag, before length limits; ""
// if nothing meaningful is left.
func normaliseTag(raw string) string {
	if isCanonicalASCIITag(raw) {
		return raw // the usual case: nothing to copy
	}
	return normaliseAnyTag(raw)
}

// isCanonicalASCIITag reports whether raw is a tag normaliseAnyTag returns
// unchanged, in ASCII: lower-case letters, digits and "_.+", single '-'
// between them, at least one letter or digit.
func isCanonicalASCIITag(raw string) bool {
	meaningful := false
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
			meaningful = true
		case c == '_' || c == '.' || c == '+':
		case c == '-' && i > 0 && i < len(raw)-1 && raw[i-1] != '-':
		default:
			return false
		}
	}
	return meaningful
}

func normaliseAnyTag(raw string) string {
	var b strings.Builder
	hyphen := false // a '-' is pending: written only before the next kept rune
	meaningful := false
	for _, r := range strings.ToLower(raw) {
		switch {
		case unicode.IsSpace(r) || r == '-':
			hyphen = b.Len() > 0
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) ||
			r == '_' || r == '.' || r == '+':
			if hyphen {
				b.WriteByte('-')
				hyphen = false
			}
			b.WriteRune(r)
			meaningful = meaningful || unicode.IsLetter(r) || unicode.IsDigit(r)
		}
	}
	if !meaningful {
		return ""
	}
	return b.String()
}
