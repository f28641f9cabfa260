package postgres

import (
	"strings"
	"unicode"

	"github.com/agora-registry/registry/internal/protocol"
)

// Word-index limits. A longer word is indexed (and searched) by its first
// MaxWordRunes runes; a document contributes at most MaxDocumentWords
// distinct words, so one huge document cannot bloat the index.
const (
	MaxWordRunes     = 64
	MaxDocumentWords = 20000
)

// splitWords lower-cases text and splits it into runs of letters and
// digits, exactly as store.Terms splits a query, so a query word matches
// a document word when they are spelled alike.
func splitWords(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// wordSet collects distinct, clipped words up to a limit.
type wordSet struct {
	seen  map[string]struct{}
	words []string
	limit int
}

func newWordSet(limit int) *wordSet {
	return &wordSet{seen: map[string]struct{}{}, words: []string{}, limit: limit}
}

func (s *wordSet) add(text string) {
	for _, w := range splitWords(text) {
		if len(s.words) >= s.limit {
			return
		}
		w = clipWord(w)
		if _, dup := s.seen[w]; !dup {
			s.seen[w] = struct{}{}
			s.words = append(s.words, w)
		}
	}
}

func clipWord(w string) string {
	n := 0
	for i := range w {
		if n == MaxWordRunes {
			return w[:i]
		}
		n++
	}
	return w
}

// documentWords are the word arrays stored with a document: every word
// (for matching), the title's and the description's and tags' (for ranking).
func documentWords(content []byte, m protocol.Metadata, tags []string) (all, title, meta []string) {
	t := newWordSet(MaxDocumentWords)
	t.add(m.Title)
	d := newWordSet(MaxDocumentWords)
	d.add(m.Description)
	for _, tag := range tags {
		d.add(tag)
	}
	a := newWordSet(MaxDocumentWords)
	a.add(m.Title)
	a.add(m.Description)
	for _, tag := range tags {
		a.add(tag)
	}
	a.add(string(content))
	return a.words, t.words, d.words
}

// queryWords are the distinct, clipped search terms.
func queryWords(terms []string) []string {
	s := newWordSet(len(terms))
	for _, t := range terms {
		s.add(t)
	}
	return s.words
}
