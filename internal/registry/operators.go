package registry

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// Search operators a query's text may hold (the search box, the API's q):
// tag:NAME adds a tag filter, publisher:NAME and status:active|deprecated
// set those filters. Any other word, foo:bar or a bare "tag:" included,
// stays a plain word.
const (
	opTag       = "tag:"
	opPublisher = "publisher:"
	opStatus    = "status:"
)

// ParseOperators takes the search operators out of q.Text into q's
// filters and leaves the other words, in order, as the text. It is pure
// and idempotent; store.Query.Normalize validates what it sets (tag and
// publisher form). A text longer than a query may be is left for
// Normalize to refuse, so the work is bounded by store.MaxQueryRunes.
func ParseOperators(q store.Query) (store.Query, error) {
	if utf8.RuneCountInString(q.Text) > store.MaxQueryRunes || !strings.Contains(q.Text, ":") {
		return q, nil
	}
	var words []string
	for _, w := range strings.Fields(q.Text) {
		name, value, ok := operator(w)
		if !ok {
			words = append(words, w)
			continue
		}
		switch name {
		case opTag:
			if n := protocol.NormaliseTags([]string{value}); len(n) == 1 {
				value = n[0]
			}
			if !slices.Contains(q.Tags, value) {
				q.Tags = append(slices.Clip(q.Tags), value)
			}
		case opPublisher:
			if q.Publisher != "" && q.Publisher != value {
				return q, store.ErrInvalid.With(fmt.Sprintf("search one publisher at a time: publisher:%s and publisher:%s", q.Publisher, value))
			}
			q.Publisher = value
		case opStatus:
			s := entity.Status(value)
			if s != entity.StatusActive && s != entity.StatusDeprecated {
				return q, store.ErrInvalid.With(fmt.Sprintf("status:%s is not a status to search by: use status:active or status:deprecated", value))
			}
			if q.Status != "" && q.Status != s {
				return q, store.ErrInvalid.With(fmt.Sprintf("search one status at a time: status:%s and status:%s", q.Status, s))
			}
			q.Status = s
		}
	}
	q.Text = strings.Join(words, " ")
	return q, nil
}

// operator splits a word that is a known operator with a value into the
// operator (lower case) and its value (lower case: tags, publishers and
// statuses are).
func operator(word string) (name, value string, ok bool) {
	for _, op := range []string{opTag, opPublisher, opStatus} {
		if len(word) > len(op) && strings.EqualFold(word[:len(op)], op) {
			return op, strings.ToLower(word[len(op):]), true
		}
	}
	return "", "", false
}
