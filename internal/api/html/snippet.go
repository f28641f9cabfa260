package html

import (
	"html/template"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/store"
)

// snippetRunes is about how much of a description a result shows around
// its first matching word.
const snippetRunes = 240

// highlight is text, escaped, with every word that starts with a query
// word wrapped in <mark> (the store stems, so "forecasts" found by
// "forecast" is marked; the reverse is not). Only the escaped text and
// the literal <mark> tags reach the page.
func highlight(text string, terms []string) template.HTML {
	var b strings.Builder
	for len(text) > 0 {
		word, rest := nextWord(text)
		if word == "" {
			// A run of separators up to the next word.
			i := strings.IndexFunc(text, isWordRune)
			if i < 0 {
				i = len(text)
			}
			b.WriteString(template.HTMLEscapeString(text[:i]))
			text = text[i:]
			continue
		}
		if matches(word, terms) {
			b.WriteString("<mark>" + template.HTMLEscapeString(word) + "</mark>")
		} else {
			b.WriteString(template.HTMLEscapeString(word))
		}
		text = rest
	}
	return template.HTML(b.String()) //nolint:gosec // built from escaped text and literal tags only
}

// matchSnippet is the part of text around its first matching word, at most
// about snippetRunes runes, highlighted; "" when no word matches.
func matchSnippet(text string, terms []string) template.HTML {
	start := -1
	for i := 0; i < len(text); {
		if !isWordRune(firstRune(text[i:])) {
			_, size := utf8.DecodeRuneInString(text[i:])
			i += size
			continue
		}
		word, _ := nextWord(text[i:])
		if matches(word, terms) {
			start = i
			break
		}
		i += len(word)
	}
	if start < 0 {
		return ""
	}
	// Some context before the match, cut at a word boundary.
	from := start
	for n := 0; from > 0 && n < snippetRunes/4; n++ {
		_, size := utf8.DecodeLastRuneInString(text[:from])
		from -= size
	}
	for from > 0 && from < start && isWordRune(firstRune(text[from:])) {
		_, size := utf8.DecodeRuneInString(text[from:])
		from += size
	}
	to, n := from, 0
	for to < len(text) && n < snippetRunes {
		_, size := utf8.DecodeRuneInString(text[to:])
		to += size
		n++
	}
	out := highlight(strings.TrimSpace(text[from:to]), terms)
	if from > 0 {
		out = "…" + out
	}
	if to < len(text) {
		out += "…"
	}
	return out
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

// nextWord splits a leading word (letters and digits, as store.Terms reads
// them) off text; word is "" when text does not start with one.
func nextWord(text string) (word, rest string) {
	i := strings.IndexFunc(text, func(r rune) bool { return !isWordRune(r) })
	if i < 0 {
		i = len(text)
	}
	return text[:i], text[i:]
}

func matches(word string, terms []string) bool {
	lower := strings.ToLower(word)
	for _, t := range terms {
		if strings.HasPrefix(lower, t) {
			return true
		}
	}
	return false
}

// resultView is a search result as the browse page shows it.
type resultView struct {
	entity.Entry
	Title   template.HTML // highlighted
	Snippet template.HTML // highlighted description part, "" for none
	// Adoption is what sort=popular ranked it by, in words ("" otherwise).
	Adoption string
}

func resultViews(entries []entity.Entry, text string) []resultView {
	terms := store.Terms(text)
	out := make([]resultView, len(entries))
	for i, e := range entries {
		out[i] = resultView{Entry: e, Title: highlight(e.Metadata.Title, terms)}
		if len(terms) > 0 {
			out[i].Snippet = matchSnippet(e.Metadata.Description, terms)
		}
	}
	return out
}
