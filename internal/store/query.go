package store

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
)

// MaxQueryTerms caps the words of a search query that reach the database.
const MaxQueryTerms = 12

// Normalize validates a query and fills its defaults. Engines call it first,
// so every engine refuses the same bad input the same way.
func (q Query) Normalize() (Query, error) {
	if utf8.RuneCountInString(q.Text) > MaxQueryRunes {
		return q, ErrInvalid.With(fmt.Sprintf("the search query is longer than %d characters", MaxQueryRunes))
	}
	if !utf8.ValidString(q.Text) {
		return q, ErrInvalid.With("the search query is not valid UTF-8")
	}
	if len(q.Tags) > MaxFilterTags {
		return q, ErrInvalid.With(fmt.Sprintf("at most %d tags can be filtered on at once", MaxFilterTags))
	}
	var tags []string
	for _, t := range q.Tags {
		n := protocol.NormaliseTags([]string{t})
		if len(n) == 0 {
			return q, ErrInvalid.With(fmt.Sprintf("%q is not a valid tag", t))
		}
		tags = append(tags, n[0])
	}
	q.Tags = tags
	if q.Publisher != "" {
		if _, err := entity.PublisherOr(q.Publisher); err != nil {
			return q, err
		}
	}
	switch q.Status {
	case "", entity.StatusActive, entity.StatusDeprecated:
	default:
		return q, ErrInvalid.With(fmt.Sprintf("unknown status %q: filter by active or deprecated", q.Status))
	}
	switch q.Sort {
	case "":
		q.Sort = SortNewest
		if len(Terms(q.Text)) > 0 {
			q.Sort = SortRelevance
		}
	case SortRelevance:
		if len(Terms(q.Text)) == 0 {
			q.Sort = SortNewest
		}
	case SortNewest, SortName:
	case SortPopular:
		if len(Terms(q.Text)) > 0 {
			return q, ErrInvalid.With("sort=popular lists without a query: leave q empty, or sort a search by relevance")
		}
	default:
		return q, ErrInvalid.With(fmt.Sprintf("unknown sort %q: use relevance, newest, name or popular", q.Sort))
	}
	var err error
	q.Limit, err = pageLimit(q.Limit)
	return q, err
}

// pageLimit is a page size asked for: 0 means DefaultPageSize, more than
// MaxPageSize is capped, a negative one is refused.
func pageLimit(limit int) (int, error) {
	switch {
	case limit < 0:
		return limit, ErrInvalid.With("limit must be positive")
	case limit == 0:
		return DefaultPageSize, nil
	}
	return min(limit, MaxPageSize), nil
}

// Terms splits search text into lower-case words of letters and digits.
// Engines build their full-text queries from these words only, so no
// operator or quote a user types ever reaches the query language.
func Terms(text string) []string {
	words := words(text)
	if len(words) > MaxQueryTerms {
		words = words[:MaxQueryTerms]
	}
	return words
}

// words splits text into lower-case words of letters and digits.
func words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// Cursor is the position after the last row of a page. Engines fill the key
// fields their sort uses: Time (newest, Unix microseconds), Name (name) or
// Rank and Name (relevance, equal ranks by name); Hex breaks ties.
type Cursor struct {
	Sort  Sort    `json:"s"`
	Query uint32  `json:"q"`
	Time  int64   `json:"t,omitempty"`
	Name  string  `json:"n,omitempty"`
	Rank  float64 `json:"r,omitempty"`
	Hex   string  `json:"h"`
}

// fingerprint ties a cursor to the query that made it.
func (q Query) fingerprint() uint32 {
	h := fnv.New32a()
	fmt.Fprintf(h, "%s\x00%s\x00%s", q.Sort, strings.Join(Terms(q.Text), " "), strings.Join(q.Tags, ","))
	if q.Sort == SortRelevance {
		// Relevance blends adoption (RankBase) and breaks ties by name: a
		// cursor of an earlier order would point elsewhere.
		h.Write([]byte("\x00blended\x00natural"))
	}
	if q.Publisher != "" || q.Status != "" {
		// Only when set: cursors of queries without them stay valid.
		fmt.Fprintf(h, "\x00%s\x00%s", q.Publisher, q.Status)
	}
	return h.Sum32()
}

// EncodeCursor makes the opaque NextCursor for a normalised query.
func (q Query) EncodeCursor(c Cursor) string {
	c.Sort = q.Sort
	c.Query = q.fingerprint()
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

// DecodeCursor reads q.Cursor; ok is false when there is none. A cursor
// that is malformed or was made for another query is ErrInvalidCursor.
func (q Query) DecodeCursor() (c Cursor, ok bool, err error) {
	if q.Cursor == "" {
		return Cursor{}, false, nil
	}
	// A name cursor carries a title key of up to MaxTitleRunes runes,
	// which JSON and Base64 can grow to about 1,800 characters.
	if len(q.Cursor) > 2048 {
		return Cursor{}, false, ErrInvalidCursor
	}
	raw, err := base64.RawURLEncoding.DecodeString(q.Cursor)
	if err != nil {
		return Cursor{}, false, ErrInvalidCursor
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return Cursor{}, false, ErrInvalidCursor
	}
	if c.Sort != q.Sort || c.Query != q.fingerprint() {
		return Cursor{}, false, ErrInvalidCursor
	}
	if _, err := protocol.ParseDigest(c.Hex); err != nil || len(c.Hex) != 40 {
		return Cursor{}, false, ErrInvalidCursor
	}
	return c, true, nil
}
