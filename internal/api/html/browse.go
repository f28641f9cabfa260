package html

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/plural"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store"
)

// Limits of the browse pages.
const (
	homeRecent   = 8
	homeTags     = 24
	browseTags   = 30
	tagsPageTags = 500
)

type homePage struct {
	base
	Stats  store.Stats
	Recent []entity.Entry
	Tags   []store.TagCount
}

// Home answers GET / for browsers: a search box, the newest protocols and
// the popular tags.
func (p *Pages) Home(c echo.Context) error {
	setSecurityHeaders(c)
	ctx := c.Request().Context()
	stats, err := p.svc.Stats(ctx)
	if err != nil {
		return err
	}
	recent, err := p.svc.Search(ctx, store.Query{Sort: store.SortNewest, Limit: homeRecent})
	if err != nil {
		return err
	}
	tags, err := p.svc.Tags(ctx, homeTags)
	if err != nil {
		return err
	}
	c.Response().Header().Add("Vary", "Accept")
	return p.render(c, http.StatusOK, "home", homePage{base: base{Nav: "home"}, Stats: stats, Recent: recent.Entries, Tags: tags})
}

type browsePage struct {
	base
	Sort    string
	Tags    []tagFilter // the active tag filters
	Entries []resultView
	// Total counts the results (about, when Estimated).
	Total     int
	Estimated bool
	// Popular are tags to narrow the results by: those among the results
	// (TagsOf of them), minus the active ones.
	Popular  []tagLink
	TagsOf   int
	Sorts    []sortOption
	NextURL  string
	PrevURL  string // set when this is not the first page
	FirstURL string // set when the previous page is not the first
	AllURL   string // the same search without tag filters
	// Suggestion respells a search that found nothing.
	Suggestion    string
	SuggestionURL string
	// TaskMatches are what task match finds for the words of a search
	// that found nothing (words need not all appear there).
	TaskMatches []entity.Entry
	// ShortPrefix is set when the words look like a hash prefix too short
	// to name a document.
	ShortPrefix bool
	Error       string // a problem with the query, shown above the results
}

type tagFilter struct {
	Tag       string
	RemoveURL string
}

type tagLink struct {
	Tag   string
	Count int
	URL   string
}

type sortOption struct {
	Value, Label string
	Selected     bool
}

// browse answers GET /protocols: listing, full-text search, tag filters,
// sort and keyset pagination.
func (p *Pages) browse(c echo.Context) error {
	if handled, err := browseByPublisher(c); handled {
		return err
	}
	ctx := c.Request().Context()
	params := c.QueryParams()
	if target, ok := p.pastedHash(c, params.Get("q")); ok {
		return c.Redirect(http.StatusSeeOther, target)
	}
	// Links keep the text as typed, operators and all, and the ?tag=
	// filters; the query searched has the operators taken out.
	text, paramTags := strings.TrimSpace(params.Get("q")), nonEmpty(params["tag"])
	q := store.Query{
		Text:   text,
		Tags:   paramTags,
		Sort:   store.Sort(params.Get("sort")),
		Cursor: params.Get("cursor"),
	}
	page := browsePage{base: base{Title: "Browse protocols", Nav: "browse", Query: text}, Sort: string(q.Sort)}
	if text != "" {
		page.Title = "Search: " + text
	}
	status := http.StatusOK
	sort := store.Sort(params.Get("sort"))
	back := readBackStack(params.Get("back"))
	q, err := registry.ParseOperators(q)
	norm := q
	if err == nil {
		norm, err = q.Normalize()
	}
	if err == nil {
		var res store.Page
		res, err = p.svc.Search(ctx, norm)
		page.Entries = resultViews(res.Entries, norm.Text)
		if norm.Sort == store.SortPopular {
			p.addAdoption(ctx, page.Entries)
		}
		if res.NextCursor != "" {
			page.NextURL = browsePageURL(text, paramTags, sort, res.NextCursor, back.push(q.Cursor))
		}
		q = norm
	}
	var sum store.Summary
	if err == nil {
		sum, err = p.svc.Summarize(ctx, q, true)
		page.Total, page.Estimated, page.TagsOf = sum.Total, sum.Estimated, sum.TagsOf
	}
	if err == nil && len(page.Entries) == 0 && q.Cursor == "" && q.Text != "" {
		if page.Suggestion, err = p.svc.Suggest(ctx, q.Text); page.Suggestion != "" {
			page.SuggestionURL = browseURL(strings.TrimSpace(page.Suggestion+" "+operatorWords(text, q.Text)), paramTags, sort, "")
		}
		page.ShortPrefix = looksLikeShortPrefix(q.Text)
		if err == nil && !page.ShortPrefix {
			page.TaskMatches, err = p.taskMatches(ctx, q.Text)
		}
	}
	if err != nil {
		ae := apperr.As(err)
		if ae == nil || ae.Kind != apperr.Invalid {
			return err
		}
		// A bad query is the user's to fix: show why beside the search box.
		status, page.Error = http.StatusBadRequest, ae.Message
	}
	if q.Cursor != "" {
		prev, rest := back.pop()
		page.PrevURL = browsePageURL(text, paramTags, sort, prev, rest)
		if prev != "" {
			page.FirstURL = browseURL(text, paramTags, sort, "")
		}
	}
	for _, t := range paramTags {
		page.Tags = append(page.Tags, tagFilter{Tag: t, RemoveURL: browseURL(text, without(paramTags, t), sort, "")})
	}
	if len(paramTags) > 0 {
		page.AllURL = browseURL(text, nil, sort, "")
	}
	page.Sorts = sortOptions(params.Get("sort"), q.Text != "")
	// Facets are the tags of the results themselves: one never leads to
	// an empty page.
	for _, t := range sum.Tags {
		if len(page.Popular) == browseTags || len(q.Tags) >= store.MaxFilterTags {
			break
		}
		page.Popular = append(page.Popular, tagLink{Tag: t.Tag, Count: t.Count,
			URL: browseURL(text, append(append([]string{}, paramTags...), t.Tag), sort, "")})
	}
	return p.render(c, status, "browse", page)
}

type tagsPage struct {
	base
	Tags []store.TagCount
}

// tags answers GET /tags: every tag in use, most used first.
func (p *Pages) tags(c echo.Context) error {
	tags, err := p.svc.Tags(c.Request().Context(), tagsPageTags)
	if err != nil {
		return err
	}
	return p.render(c, http.StatusOK, "tags", tagsPage{base: base{Title: "Tags", Nav: "tags"}, Tags: tags})
}

// browseURL builds a /protocols link that keeps a search's parameters.
func browseURL(text string, tags []string, sort store.Sort, cursor string) string {
	return browsePageURL(text, tags, sort, cursor, nil)
}

// browsePageURL is browseURL with the cursors of the pages before (back),
// so that the page it links to can link to its previous page.
func browsePageURL(text string, tags []string, sort store.Sort, cursor string, back backStack) string {
	v := url.Values{}
	if s := back.String(); s != "" {
		v.Set("back", s)
	}
	if text != "" {
		v.Set("q", text)
	}
	for _, t := range tags {
		v.Add("tag", t)
	}
	if sort != "" {
		v.Set("sort", string(sort))
	}
	if cursor != "" {
		v.Set("cursor", cursor)
	}
	if len(v) == 0 {
		return "/protocols"
	}
	return "/protocols?" + v.Encode()
}

// tagURL links to the protocols carrying one tag; templates use it.
func tagURL(tag string) string { return browseURL("", []string{tag}, "", "") }

// addAdoption labels a popular page's results with what ranked them:
// distinct clients over 30 days and speaking agents, never raw fetches. A
// failure leaves the labels out.
func (p *Pages) addAdoption(ctx context.Context, rs []resultView) {
	ds := make([]protocol.Digest, len(rs))
	for i := range rs {
		ds[i] = rs[i].Digest
	}
	sig, err := p.svc.Signals(ctx, ds)
	if err != nil {
		p.log.Warn("reading a popular page's adoption failed", "error", err)
		return
	}
	for i := range rs {
		s := sig[rs[i].Digest]
		rs[i].Adoption = plural.Count(s.Clients, "client", "clients") + ", " + plural.Count(s.Agents, "agent", "agents") + " (30 days)"
	}
}

func sortOptions(current string, hasText bool) []sortOption {
	opts := []sortOption{{Value: "", Label: "Best match"}, {Value: "newest", Label: "Newest"}, {Value: "name", Label: "Name"}}
	if !hasText {
		opts[0].Label = "Default (newest)"
		opts = append(opts, sortOption{Value: string(store.SortPopular), Label: "Most used (30 days)"})
	}
	for i := range opts {
		opts[i].Selected = opts[i].Value == current
	}
	return opts
}

// operatorWords are the words of text that parsing took out (operators),
// those of parsed kept: a respelled search keeps its filters.
func operatorWords(text, parsed string) string {
	kept := strings.Fields(parsed)
	var out []string
	for _, w := range strings.Fields(text) {
		if len(kept) > 0 && kept[0] == w {
			kept = kept[1:]
			continue
		}
		out = append(out, w)
	}
	return strings.Join(out, " ")
}

func nonEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func without(ss []string, drop string) []string {
	var out []string
	for _, s := range ss {
		if s != drop {
			out = append(out, s)
		}
	}
	return out
}

// zeroResultMatches bounds the task-match results a search that found
// nothing offers.
const zeroResultMatches = 5

// taskMatches is what task match (no model: the deterministic ranking)
// finds for a search's words, which need not all appear in a document.
func (p *Pages) taskMatches(ctx context.Context, text string) ([]entity.Entry, error) {
	ms, err := p.svc.Match(ctx, registry.MatchRequest{Task: text, Limit: zeroResultMatches})
	if err != nil {
		if ae := apperr.As(err); ae != nil && ae.Kind == apperr.Invalid {
			return nil, nil // words match cannot use: nothing to offer
		}
		return nil, err
	}
	out := make([]entity.Entry, 0, len(ms))
	for _, m := range ms {
		out = append(out, m.Entry)
	}
	return out, nil
}

// looksLikeShortPrefix: hex digits, at least one a digit, fewer than a
// prefix needs.
func looksLikeShortPrefix(text string) bool {
	text = strings.TrimSpace(text)
	return len(text) < store.MinHashPrefix && store.IsHex(text) && strings.ContainsAny(text, "0123456789")
}
