package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// Bounds of one match (docs/SECURITY.md): one indexed search of at most
// store.MaxMatchWords words and matchCandidates rows, then at most
// matchScored document reads and as many replacement look-ups, whatever
// the task says.
const (
	MaxMatchTaskRunes   = 2000
	MaxMatchLimit       = 20
	DefaultMatchLimit   = 5
	maxMatchFields      = 32  // schema field names compared
	maxSchemaNodes      = 500 // JSON-schema nodes walked, both schemas
	maxSchemaDepth      = 16
	matchCandidates     = 40 // rows the index returns
	matchScored         = 20 // of them, documents read and scored
	matchBodyScanBytes  = 256 << 10
	maxFieldNameRunes   = 64
	adoptionPointsLimit = 5.0
	textPoints          = 10.0 // the best text match's points
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
	Kind   string   // text, query, field, agents, adoption, superseded, deprecated, replaces
	Words  []string // the words or field names matched, when any
	Points float64
}

// Match is one ranked protocol.
type Match struct {
	Entry   entity.Entry
	Score   float64
	Reasons []Reason
	Signals Signals
}

// ErrEmptyMatch refuses a match with nothing to match on.
var ErrEmptyMatch = apperr.New(apperr.Invalid, "empty_match",
	"a match needs a task description or a schema with field names")

// matchWeights scale each reason; tests zero one at a time to show each
// changes the ranking.
type matchWeights struct {
	text, field, agents, adoption, demoted, query float64
}

// demoted is the share of its points a deprecated or superseded document
// loses; its replacement takes them over (matchReplacements).
// query was chosen on the benchmark's dev tasks (bench/matchbench).
var defaultMatchWeights = matchWeights{text: 1, field: 1, agents: 1, adoption: 1, demoted: 0.5, query: 4}

// stopWords never take part in a search: they would match nearly every
// document and crowd the candidates.
var stopWords = map[string]bool{
	"a": true, "an": true, "and": true, "are": true, "as": true, "at": true, "be": true, "by": true, "can": true,
	"do": true, "for": true, "from": true, "get": true, "how": true, "i": true, "in": true, "is": true, "it": true,
	"me": true, "my": true, "need": true, "of": true, "on": true, "or": true, "our": true, "please": true, "some": true,
	"that": true, "the": true, "this": true, "to": true, "us": true, "want": true, "we": true, "what": true,
	"which": true, "with": true, "would": true, "you": true, "your": true,
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
	phrasing := taskPhrasing(r.Task)
	fields, err := schemaFields(r.InputSchema, r.OutputSchema)
	if err != nil {
		return nil, err
	}
	search := searchWords(words, fieldWords(fields))
	if len(search) == 0 {
		return nil, ErrEmptyMatch
	}
	hits, err := s.store.MatchSearch(ctx, search, matchCandidates)
	if err != nil {
		return nil, err
	}
	hits = hits[:min(len(hits), matchScored)]
	ds := make([]protocol.Digest, len(hits))
	for i, h := range hits {
		ds[i] = h.Entry.Digest
	}
	signals, err := s.Signals(ctx, ds)
	if err != nil {
		return nil, err
	}
	out := make([]Match, 0, len(hits))
	for _, h := range hits {
		body, err := s.Raw(ctx, h.Entry.Digest)
		if err != nil {
			continue // withdrawn since the search: not a match
		}
		text := w.text * textPoints * h.Relevance / hits[0].Relevance
		m := scoreMatch(h.Entry, body[:min(len(body), matchBodyScanBytes)], text, words, fields, signals[h.Entry.Digest], w)
		m.addQuery(body, phrasing, w)
		out = append(out, m)
	}
	if out, err = s.matchReplacements(ctx, out, w); err != nil {
		return nil, err
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

// searchWords are the task's words (taskWords), then the schemas' field
// words, distinct, at most store.MaxMatchWords: the task says more of what
// is wanted.
func searchWords(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		for _, w := range l {
			if len(out) < store.MaxMatchWords && !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
	}
	return out
}

// replacementOf is the document that replaces e: the deprecation's named
// replacement, or the newest listed version of the same publisher.
func (s *Service) replacementOf(ctx context.Context, e entity.Entry) (*protocol.Digest, error) {
	if e.Lifecycle.Status == entity.StatusDeprecated && e.Lifecycle.Replacement != nil {
		return e.Lifecycle.Replacement, nil
	}
	if !e.Superseded() {
		return nil, nil
	}
	successors, err := s.store.Successors(ctx, e.Digest)
	if err != nil {
		return nil, err
	}
	for _, n := range slices.Backward(successors) {
		if n.Publisher == e.Publisher {
			return &n.Digest, nil
		}
	}
	return nil, nil
}

// matchReplacements ranks a replacement above what it replaces: a
// demoted match (deprecated, or superseded by a newer version) gives the
// points it loses to its replacement, which joins the matches if the
// search missed it. At most one look-up per match.
func (s *Service) matchReplacements(ctx context.Context, ms []Match, w matchWeights) ([]Match, error) {
	n := len(ms)
	for i := range n {
		e := ms[i].Entry
		if e.Demoted == 0 || ms[i].Score <= 0 {
			continue
		}
		kind := "superseded"
		if e.Lifecycle.Status == entity.StatusDeprecated {
			kind = "deprecated"
		}
		lost := math.Round(w.demoted*ms[i].Score*1000) / 1000
		ms[i].add(kind, nil, -lost)
		to, err := s.replacementOf(ctx, e)
		if err != nil {
			return nil, err
		}
		if to == nil || *to == e.Digest {
			continue
		}
		j := slices.IndexFunc(ms, func(m Match) bool { return m.Entry.Digest == *to })
		if j < 0 {
			r, err := s.store.Get(ctx, *to, false)
			if err != nil {
				continue // withdrawn or gone: nothing to prefer
			}
			ms = append(ms, Match{Entry: r})
			j = len(ms) - 1
		}
		// The replacement is at least as good a match as what it replaces.
		if gap := ms[i].Score + lost - ms[j].Score; gap > 0 {
			ms[j].add("replaces", []string{e.Digest.Hex()}, math.Round((gap+0.001)*1000)/1000)
		}
	}
	return ms, nil
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

// taskPhrasing is the set of the task's words, stop words included and
// plurals folded: a representative query is phrased like the task when
// it shares them ("translate this into german").
func taskPhrasing(task string) map[string]bool {
	set := map[string]bool{}
	for _, w := range store.Terms(task) {
		set[fold(w)] = true
	}
	return set
}

// addQuery adds the points of the document's representative query phrased
// most like the task: its distinct words the task has, over the square
// root of its length, so a short query met whole counts most. Queries are
// few and short (protocol.MaxRepresentativeQueries), the task's words a set.
func (m *Match) addQuery(body []byte, phrasing map[string]bool, w matchWeights) {
	fm, _, ok := protocol.SplitFrontMatter(body)
	if !ok || !bytes.Contains(fm, []byte("representativeQueries")) {
		return // decoding the YAML is the cost: not for nothing
	}
	best, bestWords := 0.0, []string(nil)
	for _, q := range protocol.RepresentativeQueries(body) {
		terms := store.Terms(q)
		var met []string
		for _, t := range terms {
			if phrasing[fold(t)] && !slices.Contains(met, t) {
				met = append(met, t)
			}
		}
		if len(terms) > 0 && len(met) > 0 {
			if v := float64(len(met)) / math.Sqrt(float64(len(terms))); v > best {
				best, bestWords = v, met
			}
		}
	}
	m.add("query", bestWords, math.Round(w.query*best*1000)/1000)
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

// fold drops a plural's trailing 's'.
func fold(w string) string {
	if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
		return w[:len(w)-1]
	}
	return w
}

func (m *Match) add(kind string, matched []string, points float64) {
	if points != 0 {
		m.Reasons = append(m.Reasons, Reason{Kind: kind, Words: matched, Points: points})
		m.Score = math.Round((m.Score+points)*1000) / 1000
	}
}

// scoreMatch adds up a candidate's reasons: its text points (the index's
// relevance, the best candidate's being textPoints), the schema fields the
// document names, and, only for a document that matched, its agents and
// clients.
func scoreMatch(e entity.Entry, body []byte, text float64, words, fields []string, sig Signals, w matchWeights) Match {
	m := Match{Entry: e, Signals: sig}
	lower := strings.ToLower(string(body))
	var found []string
	for _, word := range words {
		// The word, its plural or its singular, as a whole word: a look-up
		// per task word costs less than a set of the document's words.
		if f := fold(word); containsName(lower, f) || containsName(lower, f+"s") {
			found = append(found, word)
		}
	}
	m.add("text", found, math.Round(text*1000)/1000)
	var inDoc []string
	for _, f := range fields {
		if containsName(lower, f) {
			inDoc = append(inDoc, f)
		}
	}
	m.add("field", inDoc, w.field*2*float64(len(inDoc)))
	if m.Score <= 0 {
		return m // adoption ranks matches; it never makes one
	}
	m.add("agents", nil, w.agents*math.Min(float64(sig.Agents), adoptionPointsLimit))
	m.add("adoption", nil, w.adoption*math.Min(math.Log2(1+float64(sig.Clients)), adoptionPointsLimit))
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

// WithQueries fills e's RepresentativeQueries from its bytes (the store
// keeps them only in the match index), reading them unless e has Content.
func (s *Service) WithQueries(ctx context.Context, e entity.Entry) entity.Entry {
	body := e.Content
	if body == nil {
		var err error
		if body, err = s.Raw(ctx, e.Digest); err != nil {
			return e // shown without them
		}
	}
	e.Metadata.RepresentativeQueries = protocol.RepresentativeQueries(body)
	return e
}
