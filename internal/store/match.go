package store

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
)

// Limits of MatchSearch. They bound one task match's store work: one
// indexed query of at most MaxMatchWords words, at most MaxMatchHits rows.
const (
	MaxMatchWords = 12
	MaxMatchHits  = 100
	// MatchCommonRows: a word held by this many documents or more is
	// common; an engine may leave it out of a search that has rarer
	// words, so one search scores fewer than MaxMatchWords × this rows.
	MatchCommonRows = 2000
	// Headings indexed per document, from the first matchHeadingScan
	// bytes of its body.
	maxMatchHeadings = 32
	matchHeadingScan = 64 << 10
)

// MatchHit is one entry the match index found. Relevance is the engine's
// field-weighted score (higher is better); it orders one answer and means
// nothing across answers or engines.
type MatchHit struct {
	Entry     entity.Entry
	Relevance float64
}

// CheckMatchArgs refuses a MatchSearch outside the contract: 1 to
// MaxMatchWords words of letters and digits (store.Terms makes them), a
// limit of 1 to MaxMatchHits.
func CheckMatchArgs(words []string, limit int) error {
	if len(words) == 0 || len(words) > MaxMatchWords || limit < 1 || limit > MaxMatchHits {
		return ErrInvalid.With(fmt.Sprintf("a match search takes 1 to %d words and 1 to %d rows", MaxMatchWords, MaxMatchHits))
	}
	for _, w := range words {
		if w == "" || strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) >= 0 {
			return ErrInvalid.With("a match search word is letters and digits only")
		}
	}
	return nil
}

// MatchText is what the match index holds of a document beside its title,
// tags and description: its representative queries and its Markdown
// headings (both engines index the same text).
func MatchText(d protocol.Document) (queries, headings string) {
	body := d.Content
	if _, rest, ok := protocol.SplitFrontMatter(body); ok {
		body = rest
	}
	body = body[:min(len(body), matchHeadingScan)]
	var hs []string
	for line := range bytes.Lines(body) {
		if len(hs) == maxMatchHeadings {
			break
		}
		t := bytes.TrimLeft(line, "#")
		if len(t) < len(line) && len(line)-len(t) <= 6 && (len(t) == 0 || t[0] == ' ' || t[0] == '\t') {
			hs = append(hs, strings.TrimSpace(string(t)))
		}
	}
	return strings.Join(d.Metadata.RepresentativeQueries, ". "), strings.Join(hs, ". ")
}
