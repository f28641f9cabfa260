package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// Bounds of one match (docs/SECURITY.md): the work is a fixed number of
// searches and document reads, whatever the task says.
const (
	MaxMatchTaskRunes   = 2000
	MaxMatchLimit       = 20
	DefaultMatchLimit   = 5
	maxMatchWords       = 8   // task words searched for
	maxMatchFields      = 32  // schema field names compared
	maxSchemaNodes      = 500 // JSON-schema nodes walked, both schemas
	maxSchemaDepth      = 16
	matchPerWord        = 30 // candidates each searched word contributes
	maxMatchCandidates  = 60 // documents read and scored
	matchBodyScanBytes  = 256 << 10
	maxFieldNameRunes   = 64
	adoptionPointsLimit = 5.0
)

// MatchRequest is a task to find protocols for: a description and the
// JSON schemas of its input and output as the Python SDK's TaskSchema
// writes them (any of them may be missing, but not all).
type MatchRequest struct {
	Task         string
	InputSchema  json.RawMessage
	OutputSchema json.RawMessage
	Limit        int
	// Client is who asks, as the transport tells clients apart (the API:
	// the address key its rate limits use); it keys the re-rank's
	// per-client budget. Callers that leave it empty share one.
	Client string
}

// Reason is one contribution to a match's score.
type Reason struct {
	Kind   string   // title, description, body, field, agents, adoption, superseded
	Words  []string // the words or field names matched, when any
	Points float64
}

// Match is one ranked protocol.
type Match struct {
	Entry   store.Entry
	Score   float64
	Reasons []Reason
	Signals Signals
}

// ErrEmptyMatch refuses a match with nothing to match on.
var ErrEmptyMatch = apperr.New(apperr.Invalid, "empty_match",
	"a match needs a task description or a schema with field names")

// matchWeights are the points of each reason; tests zero one at a time to
// show each changes the ranking.
type matchWeights struct {
	title, description, body, field, agents, adoption, superseded float64
}

var defaultMatchWeights = matchWeights{title: 3, description: 2, body: 1, field: 2, agents: 1, adoption: 1, superseded: -4}

// stopWords never take a search of their own: they would match nearly
// every document and crowd the candidates.
var stopWords = map[string]bool{
	"a": true, "an": true, "and": true, "are": true, "as": true, "at": true, "be": true, "by": true, "for": true,
	"from": true, "get": true, "i": true, "in": true, "is": true, "it": true, "me": true, "my": true, "of": true,
	"on": true, "or": true, "please": true, "some": true, "that": true, "the": true, "this": true, "to": true,
	"want": true, "what": true, "which": true, "with": true, "would": true, "you": true,
}

// Match ranks stored protocols for a task, deterministically.
func (s *Service) Match(ctx context.Context, r MatchRequest) ([]Match, error) {
	return s.match(ctx, r, defaultMatchWeights)
}

func (s *Service) match(ctx context.Context, r MatchRequest, w matchWeights) ([]Match, error) {
	if !utf8.ValidString(r.Task) || utf8.RuneCountInString(r.Task) > MaxMatchTaskRunes {
		return nil, store.ErrInvalid.With(fmt.Sprintf("the task is at most %d characters of valid UTF-8", MaxMatchTaskRunes))
	}
	switch {
	case r.Limit < 0:
		return nil, store.ErrInvalid.With("limit must be positive")
	case r.Limit == 0:
		r.Limit = DefaultMatchLimit
	case r.Limit > MaxMatchLimit:
		r.Limit = MaxMatchLimit
	}
	words := taskWords(r.Task)
	fields, err := schemaFields(r.InputSchema, r.OutputSchema)
	if err != nil {
		return nil, err
	}
	if len(words) == 0 && len(fields) == 0 {
		return nil, ErrEmptyMatch
	}
	cands, err := s.matchCandidates(ctx, append(slices.Clone(words), fieldWords(fields)...))
	if err != nil {
		return nil, err
	}
	ds := make([]protocol.Digest, len(cands))
	for i, c := range cands {
		ds[i] = c.Digest
	}
	signals, err := s.Signals(ctx, ds)
	if err != nil {
		return nil, err
	}
	out := make([]Match, 0, len(cands))
	for _, e := range cands {
		body, err := s.Raw(ctx, e.Digest)
		if err != nil {
			continue // withdrawn since the search: not a match
		}
		v, err := s.Versions(ctx, e)
		if err != nil {
			return nil, err
		}
		m := scoreMatch(e, body[:min(len(body), matchBodyScanBytes)], words, fields, signals[e.Digest], len(v.Newer) > 0, w)
		if m.Score > 0 {
			out = append(out, m)
		}
	}
	slices.SortStableFunc(out, func(a, b Match) int {
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Entry.Digest.Hex(), b.Entry.Digest.Hex())
	})
	return out[:min(len(out), r.Limit)], nil
}

// matchCandidates searches each word alone (the store ANDs words) and
// keeps the documents most words found, at most maxMatchCandidates.
func (s *Service) matchCandidates(ctx context.Context, words []string) ([]store.Entry, error) {
	hits := map[protocol.Digest]int{}
	entries := map[protocol.Digest]store.Entry{}
	seen := map[string]bool{}
	searched := 0
	for _, word := range words {
		if seen[word] || searched == maxMatchWords {
			continue
		}
		seen[word] = true
		searched++
		page, err := s.store.Search(ctx, store.Query{Text: word, Sort: store.SortRelevance, Limit: matchPerWord})
		if err != nil {
			return nil, err
		}
		for _, e := range page.Entries {
			hits[e.Digest]++
			entries[e.Digest] = e
		}
	}
	out := make([]store.Entry, 0, len(entries))
	for _, e := range entries {
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b store.Entry) int {
		if hits[a.Digest] != hits[b.Digest] {
			return hits[b.Digest] - hits[a.Digest]
		}
		return strings.Compare(a.Digest.Hex(), b.Digest.Hex())
	})
	return out[:min(len(out), maxMatchCandidates)], nil
}

// taskWords are the task's words without stop words, in order, distinct.
func taskWords(task string) []string {
	var out []string
	for _, w := range store.Terms(task) {
		if !stopWords[w] && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// schemaFields collects the property names of both schemas (nested
// objects and array items too), in order, distinct, lower-cased.
func schemaFields(schemas ...json.RawMessage) ([]string, error) {
	var fields []string
	nodes := 0
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		m, ok := v.(map[string]any)
		if !ok || depth > maxSchemaDepth || nodes >= maxSchemaNodes {
			return
		}
		nodes++
		if props, ok := m["properties"].(map[string]any); ok {
			names := make([]string, 0, len(props))
			for name := range props {
				names = append(names, name)
			}
			slices.Sort(names) // map order is random; the result must not be
			for _, name := range names {
				f := strings.ToLower(name)
				if f != "" && utf8.RuneCountInString(f) <= maxFieldNameRunes && !slices.Contains(fields, f) && len(fields) < maxMatchFields {
					fields = append(fields, f)
				}
				walk(props[name], depth+1)
			}
		}
		walk(m["items"], depth+1)
	}
	for _, raw := range schemas {
		if len(raw) == 0 || string(raw) == "null" {
			continue
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, store.ErrInvalid.With("a schema is not JSON")
		}
		if _, ok := v.(map[string]any); !ok {
			return nil, store.ErrInvalid.With("a schema is a JSON object")
		}
		walk(v, 0)
	}
	return fields, nil
}

// fieldWords are the searchable words of field names ("temperature_unit"
// searches "temperature" and "unit").
func fieldWords(fields []string) []string {
	var out []string
	for _, f := range fields {
		out = append(out, store.Terms(f)...)
	}
	return out
}

// wordSet is the set of a text's words (split as store.Terms splits, but
// all of them), with a trailing plural 's' folded.
func wordSet(text string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		set[fold(w)] = true
	}
	return set
}

func fold(w string) string {
	if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
		return w[:len(w)-1]
	}
	return w
}

func scoreMatch(e store.Entry, body []byte, words, fields []string, sig Signals, superseded bool, w matchWeights) Match {
	m := Match{Entry: e, Signals: sig}
	add := func(kind string, matched []string, points float64) {
		if points != 0 {
			m.Reasons = append(m.Reasons, Reason{Kind: kind, Words: matched, Points: points})
			m.Score += points
		}
	}
	title, desc := wordSet(e.Metadata.Title), wordSet(e.Metadata.Description+" "+strings.Join(e.Metadata.Tags, " "))
	text := strings.ToLower(string(body))
	bodyWords := wordSet(text)
	var inTitle, inDesc, inBody []string
	for _, word := range words {
		f := fold(word)
		switch {
		case title[f]:
			inTitle = append(inTitle, word)
		case desc[f]:
			inDesc = append(inDesc, word)
		case bodyWords[f]:
			inBody = append(inBody, word)
		}
	}
	add("title", inTitle, w.title*float64(len(inTitle)))
	add("description", inDesc, w.description*float64(len(inDesc)))
	add("body", inBody, w.body*float64(len(inBody)))
	var inDoc []string
	for _, f := range fields {
		if containsName(text, f) {
			inDoc = append(inDoc, f)
		}
	}
	add("field", inDoc, w.field*float64(len(inDoc)))
	if m.Score == 0 {
		return m // adoption ranks matches; it never makes one
	}
	add("agents", nil, w.agents*math.Min(float64(sig.Agents), adoptionPointsLimit))
	add("adoption", nil, w.adoption*math.Min(math.Log2(1+float64(sig.Clients)), adoptionPointsLimit))
	if superseded {
		add("superseded", nil, w.superseded)
	}
	m.Score = math.Round(m.Score*1000) / 1000
	return m
}

// containsName reports whether name occurs in text as a whole identifier
// (not inside a longer one), so "id" does not match "valid".
func containsName(text, name string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], name)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(name)
		if (start == 0 || !identByte(text[start-1])) && (end == len(text) || !identByte(text[end])) {
			return true
		}
		i = start + 1
	}
}

func identByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 0x80
}
