package ard

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store"
)

// Service answers the ARD surface from the registry and its directory.
type Service struct {
	protocols Protocols
	agents    Agents      // nil: no directory, no agent entries
	fed       *Federation // nil: follows no registry
	base      string      // the registry's public URL
	publisher string      // its host, the publisher of its URNs
}

// New builds the service; agents and fed may be nil.
func New(p Protocols, agents Agents, fed *Federation) *Service {
	base := p.PublicURL()
	pub := hostPublisher(base)
	if pub == "" {
		pub = "agora-registry.invalid" // an IPv6 literal cannot be a URN publisher
	}
	return &Service{protocols: p, agents: agents, fed: fed, base: base, publisher: pub}
}

// Base is the ARD API's base URL.
func (s *Service) Base() string { return s.base + "/ard" }

// Self is this registry as a catalog entry.
func (s *Service) Self() Entry {
	return Entry{
		Identifier: "urn:air:" + s.publisher + ":" + nsRegistry + ":ard", DisplayName: "Agora Registry at " + s.publisher,
		Type: TypeRegistry, URL: s.Base(),
		Description: "Search the Agora protocol documents this registry stores and the agents that speak them.",
		Tags:        []string{"registry", "agora", "protocols", "agents"},
	}
}

func (s *Service) protocolEntry(e entity.Entry) Entry { return ProtocolEntry(s.base, s.publisher, e) }

// Page tokens name a phase (protocols, then agents) and the store's cursor
// within it.
func pageToken(phase byte, cursor string) string {
	return base64.RawURLEncoding.EncodeToString(append([]byte{phase}, cursor...))
}

func readPageToken(tok string) (phase byte, cursor string, err error) {
	if tok == "" {
		return 'p', "", nil
	}
	b, err := base64.RawURLEncoding.DecodeString(tok)
	if len(tok) > 512 || err != nil || len(b) == 0 || b[0] != 'p' && b[0] != 'a' || !utf8.Valid(b) {
		return 0, "", ErrBadToken
	}
	return b[0], string(b[1:]), nil
}

// page lists up to size entries, the protocols newest first and then the
// agents in registration order, and the token of the next page ("" at the
// end).
func (s *Service) page(ctx context.Context, tok string, size int) ([]Entry, string, error) {
	phase, cursor, err := readPageToken(tok)
	if err != nil {
		return nil, "", err
	}
	out := []Entry{}
	if phase == 'p' {
		pg, err := s.protocols.Search(ctx, store.Query{Sort: store.SortNewest, Limit: size, Cursor: cursor})
		if err != nil {
			return nil, "", badCursor(err)
		}
		for _, e := range pg.Entries {
			out = append(out, s.protocolEntry(e))
		}
		switch {
		case pg.NextCursor != "":
			return out, pageToken('p', pg.NextCursor), nil
		case s.agents == nil:
			return out, "", nil
		case len(out) == size:
			return out, pageToken('a', ""), nil
		}
		// The protocols end here: the agents fill the rest of the page.
		size, cursor = size-len(out), ""
	}
	if s.agents == nil {
		return out, "", nil
	}
	ap, err := s.agents.List(ctx, store.AgentQuery{Limit: size, Cursor: cursor})
	if err != nil {
		return nil, "", badCursor(err)
	}
	for _, a := range ap.Agents {
		if e, ok := AgentEntry(a); ok {
			out = append(out, e)
		}
	}
	if ap.NextCursor != "" {
		return out, pageToken('a', ap.NextCursor), nil
	}
	return out, "", nil
}

func badCursor(err error) error {
	if errors.Is(err, store.ErrInvalidCursor) {
		return ErrBadToken
	}
	return err
}

// Manifest is one page of the registry's manifest: this registry as a
// discovery endpoint (first page), up to ManifestPageSize entries, and,
// when more follow, a nested catalog entry whose URL is the next page
// (the spec's way to split a catalog).
func (s *Service) Manifest(ctx context.Context, tok string) (Manifest, error) {
	entries, next, err := s.page(ctx, tok, ManifestPageSize)
	if err != nil {
		return Manifest{}, err
	}
	m := Manifest{SpecVersion: SpecVersion, Entries: make([]Entry, 0, len(entries)+2),
		Host: Host{DisplayName: "Agora Registry at " + s.publisher, DocumentationURL: s.base + "/llms.txt"}}
	if tok == "" {
		m.Entries = append(m.Entries, s.Self())
	}
	m.Entries = append(m.Entries, entries...)
	if next != "" {
		m.Entries = append(m.Entries, Entry{
			Identifier: "urn:air:" + s.publisher + ":" + nsRegistry + ":manifest-next", DisplayName: "More of this registry's catalog",
			Type: TypeCatalog, URL: s.base + "/.well-known/ard.json?pageToken=" + url.QueryEscape(next),
		})
	}
	return m, nil
}

// List is GET /agents: a page of entries. Filter and ordering expressions
// are not supported (the listing order is fixed).
func (s *Service) List(ctx context.Context, filter, orderBy, tok string, size int) (ListResponse, error) {
	if filter != "" || orderBy != "" {
		return ListResponse{}, ErrUnknownField.With("this registry lists in one fixed order and takes no filter expression; POST /ard/search filters")
	}
	switch {
	case size < 0:
		return ListResponse{}, ErrInvalid.With("pageSize must be positive")
	case size == 0:
		size = DefaultListSize
	case size > MaxPageSize:
		size = MaxPageSize
	}
	items, next, err := s.page(ctx, tok, size)
	return ListResponse{Items: items, PageToken: next}, err
}

// Lookup returns the entry an identifier names.
func (s *Service) Lookup(ctx context.Context, id string) (Entry, error) {
	u, ok := parseURN(id)
	if !ok {
		return Entry{}, ErrNotFound
	}
	switch u.namespace {
	case nsProtocol:
		d, ok := isDigestHex(u.name)
		if !ok || u.publisher != s.publisher {
			return Entry{}, ErrNotFound
		}
		e, err := s.protocols.Get(ctx, d, true)
		if err != nil {
			return Entry{}, notFound(err)
		}
		// The store keeps a document's representativeQueries in its match
		// index only; one lookup reads them from the bytes.
		e.Metadata.RepresentativeQueries = protocol.RepresentativeQueries(e.Content)
		return s.protocolEntry(e), nil
	case nsAgent:
		origin := agentOrigin(u)
		if origin == "" || s.agents == nil {
			return Entry{}, ErrNotFound
		}
		a, err := s.agents.ByURL(ctx, origin)
		if err != nil {
			return Entry{}, notFound(err)
		}
		if e, ok := AgentEntry(a); ok {
			return e, nil
		}
	case nsRegistry:
		if u.publisher == s.publisher && u.name == "ard" {
			return s.Self(), nil
		}
	}
	return Entry{}, ErrNotFound
}

func notFound(err error) error {
	if e := apperr.As(err); e != nil && (e.Kind == apperr.NotFound || e.Kind == apperr.Gone) {
		return ErrNotFound
	}
	return err
}

// filterKeys are the fields this registry filters and facets on.
var filterKeys = []string{"type", "tags", "publisher", "capabilities"}

// values are an entry's values for a filter or facet field.
func values(e Entry, field string) []string {
	switch field {
	case "type":
		return []string{e.Type}
	case "tags":
		return e.Tags
	case "capabilities":
		return e.Capabilities
	case "publisher":
		if u, ok := parseURN(e.Identifier); ok {
			return []string{u.publisher}
		}
	}
	return nil
}

// Filter is a parsed query filter: field to accepted values.
type Filter map[string][]string

func parseFilter(raw map[string]json.RawMessage) (Filter, error) {
	if len(raw) > MaxFilterKeys {
		return nil, ErrInvalid.With(fmt.Sprintf("a filter has at most %d keys", MaxFilterKeys))
	}
	f := Filter{}
	for k, v := range raw {
		if !slices.Contains(filterKeys, k) {
			return nil, ErrUnknownField.With(fmt.Sprintf("this registry does not filter on %q; it filters on %s", k, strings.Join(filterKeys, ", ")))
		}
		vals, err := stringOrList(v)
		if err != nil {
			return nil, ErrInvalid.With(fmt.Sprintf("filter %q: %s", k, err.Error()))
		}
		f[k] = vals
	}
	return f, nil
}

func (f Filter) matches(e Entry) bool {
	for k, want := range f {
		if !slices.ContainsFunc(values(e, k), func(v string) bool {
			return slices.ContainsFunc(want, func(w string) bool { return strings.EqualFold(v, w) })
		}) {
			return false
		}
	}
	return true
}

// scale maps a match score onto 0–100, the best local match being 100.
func scale(score, top float64) int {
	if top <= 0 || score <= 0 {
		return 0
	}
	return max(1, min(100, int(math.Round(100*score/top))))
}

// matched is the local matched set of a text: the task match's protocols
// (registry.MaxMatchLimit at most), then the agents that speak the best
// few of them, scored as the protocol they speak, that pass f. Search
// and Explore share it, so one cutoff governs both.
func (s *Service) matched(ctx context.Context, text string, f Filter) ([]Result, error) {
	ms, err := s.protocols.Match(ctx, registry.MatchRequest{Task: text, Limit: registry.MaxMatchLimit})
	if errors.Is(err, registry.ErrEmptyMatch) || err == nil && len(ms) == 0 {
		return []Result{}, nil // only stop words, or nothing found
	}
	if err != nil {
		return nil, err
	}
	top := ms[0].Score
	out := []Result{}
	seen := map[string]bool{}
	add := func(e Entry, score int) {
		if !seen[e.Identifier] && f.matches(e) {
			seen[e.Identifier] = true
			out = append(out, Result{Entry: e, Score: score, Source: s.Base()})
		}
	}
	for _, m := range ms {
		add(s.protocolEntry(m.Entry), scale(m.Score, top))
	}
	if s.agents != nil {
		for _, m := range ms[:min(len(ms), speakerProtocols)] {
			pa, err := s.agents.For(ctx, m.Entry.Digest)
			if err != nil {
				return nil, err
			}
			for _, a := range pa.Speaking[:min(len(pa.Speaking), speakersPerProtocol)] {
				if e, ok := AgentEntry(a); ok {
					add(e, scale(m.Score, top))
				}
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Result) int { return cmp.Compare(b.Score, a.Score) })
	return out, nil
}

func queryText(q *Query) string {
	if q == nil || q.Text == nil {
		return ""
	}
	return strings.TrimSpace(*q.Text)
}

func queryFilter(q *Query) (Filter, error) {
	if q == nil {
		return Filter{}, nil
	}
	return parseFilter(q.Filter)
}

// Search answers POST /search: the local matched set, merged with what
// the followed registries answer when the request federates ("auto", the
// default, and hop allows it), or with referrals to them ("referrals").
// skipped counts the peers asked that gave no usable answer.
func (s *Service) Search(ctx context.Context, r SearchRequest, hop Hop) (resp SearchResponse, skipped int, err error) {
	text := queryText(r.Query)
	if text == "" {
		return resp, 0, ErrInvalid.With("query.text is required and not blank")
	}
	f, err := queryFilter(r.Query)
	if err != nil {
		return resp, 0, err
	}
	mode := r.Federation
	if mode == "" {
		mode = "auto"
	}
	if mode != "auto" && mode != "referrals" && mode != "none" {
		return resp, 0, ErrInvalid.With(`federation is "auto", "referrals" or "none"`)
	}
	size := DefaultPageSize
	if r.PageSize != nil {
		size = *r.PageSize
		if size < 1 {
			return resp, 0, ErrInvalid.With("pageSize must be positive")
		}
		size = min(size, MaxPageSize)
	}
	if r.PageToken != "" {
		return resp, 0, ErrBadToken.With("this registry answers a search in one page and issues no page tokens")
	}
	results, err := s.matched(ctx, text, f)
	if err != nil {
		return resp, 0, err
	}
	if s.fed != nil {
		switch {
		case mode == "referrals":
			resp.Referrals = s.fed.Referrals()
		case mode == "auto" && hop.fansOut(s.Base()):
			var peer []Result
			peer, skipped = s.fed.Search(ctx, *r.Query, size, hop.next(s.Base()))
			results = merge(results, peer)
		}
	}
	resp.Results = results[:min(len(results), size)]
	return resp, skipped, nil
}

// merge appends the peers' results the local ones lack (by identifier)
// and orders all by score, local first among equals.
func merge(local, peer []Result) []Result {
	seen := map[string]bool{}
	for _, r := range local {
		seen[r.Identifier] = true
	}
	for _, r := range peer {
		if !seen[r.Identifier] {
			seen[r.Identifier] = true
			local = append(local, r)
		}
	}
	slices.SortStableFunc(local, func(a, b Result) int { return cmp.Compare(b.Score, a.Score) })
	return local
}

// Explore answers POST /explore: facets over the matched set of the
// query's text (the search's set, exact counts); without a text, over
// the whole registry, where only the type facet and filter are served
// (their counts are kept; other fields would need a scan of everything).
func (s *Service) Explore(ctx context.Context, r ExploreRequest) (ExploreResponse, error) {
	if r.ResultType == nil || len(r.ResultType.Facets) == 0 {
		return ExploreResponse{}, ErrInvalid.With("resultType.facets is required and not empty")
	}
	if len(r.ResultType.Facets) > MaxFacets {
		return ExploreResponse{}, ErrInvalid.With(fmt.Sprintf("at most %d facets", MaxFacets))
	}
	f, err := queryFilter(r.Query)
	if err != nil {
		return ExploreResponse{}, err
	}
	text := queryText(r.Query)
	for _, fr := range r.ResultType.Facets {
		if !slices.Contains(filterKeys, fr.Field) {
			return ExploreResponse{}, ErrUnknownField.With(fmt.Sprintf("this registry does not facet on %q; it facets on %s", fr.Field, strings.Join(filterKeys, ", ")))
		}
		if text == "" && fr.Field != "type" {
			return ExploreResponse{}, ErrUnknownField.With("without query.text this registry facets on type only")
		}
		if fr.Limit != nil && *fr.Limit < 1 || fr.MinCount != nil && *fr.MinCount < 0 {
			return ExploreResponse{}, ErrInvalid.With("a facet's limit is positive and its minCount not negative")
		}
	}
	if text == "" {
		for k := range f {
			if k != "type" {
				return ExploreResponse{}, ErrUnknownField.With("without query.text this registry filters on type only")
			}
		}
	}
	counts := map[string]map[string]int{}
	if text != "" {
		matched, err := s.matched(ctx, text, f)
		if err != nil {
			return ExploreResponse{}, err
		}
		for _, fr := range r.ResultType.Facets {
			c := map[string]int{}
			for _, m := range matched {
				for _, v := range distinct(values(m.Entry, fr.Field)) {
					c[v]++
				}
			}
			counts[fr.Field] = c
		}
	} else {
		c, err := s.typeCounts(ctx, f)
		if err != nil {
			return ExploreResponse{}, err
		}
		counts["type"] = c
	}
	out := ExploreResponse{ResultType: "facets", Facets: map[string]Facet{}}
	for _, fr := range r.ResultType.Facets {
		limit, minCount := DefaultFacetLimit, 1
		if fr.Limit != nil {
			limit = min(*fr.Limit, MaxFacetLimit)
		}
		if fr.MinCount != nil {
			minCount = *fr.MinCount
		}
		out.Facets[fr.Field] = buckets(counts[fr.Field], limit, minCount)
	}
	return out, nil
}

// typeCounts counts the whole registry by type from counts the store
// keeps (documents) or one count query (agents).
func (s *Service) typeCounts(ctx context.Context, f Filter) (map[string]int, error) {
	st, err := s.protocols.Stats(ctx)
	if err != nil {
		return nil, err
	}
	c := map[string]int{TypeProtocol: st.Documents}
	if s.agents != nil {
		n, err := s.agents.Count(ctx)
		if err != nil {
			return nil, err
		}
		c[TypeAgent] = n
	}
	if want, ok := f["type"]; ok {
		for t := range c {
			if !slices.ContainsFunc(want, func(w string) bool { return strings.EqualFold(w, t) }) {
				delete(c, t)
			}
		}
	}
	return c, nil
}

func distinct(vs []string) []string {
	var out []string
	for _, v := range vs {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// buckets orders counts by count then value, keeps those of at least
// minCount, and sums the ones beyond limit into OtherCount.
func buckets(counts map[string]int, limit, minCount int) Facet {
	all := make([]Bucket, 0, len(counts))
	for v, n := range counts {
		if n >= minCount && n > 0 {
			all = append(all, Bucket{Value: v, Count: n})
		}
	}
	slices.SortFunc(all, func(a, b Bucket) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.Value, b.Value))
	})
	f := Facet{Buckets: all[:min(len(all), limit)]}
	for _, b := range all[len(f.Buckets):] {
		f.OtherCount += b.Count
	}
	return f
}

// stringOrList reads a filter value: a string or a list of strings (the
// spec accepts a bare scalar as a one-element list), within the bounds.
func stringOrList(raw json.RawMessage) ([]string, error) {
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		var one string
		if json.Unmarshal(raw, &one) != nil {
			return nil, errors.New("a value is a string or a list of strings")
		}
		list = []string{one}
	}
	if len(list) == 0 || len(list) > MaxFilterValues {
		return nil, fmt.Errorf("1 to %d values", MaxFilterValues)
	}
	for _, v := range list {
		if v == "" || len(v) > MaxFilterValueLen {
			return nil, fmt.Errorf("a value is 1 to %d bytes", MaxFilterValueLen)
		}
	}
	return list, nil
}
