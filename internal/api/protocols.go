package api

import (
	"mime"
	"net/http"
	"strconv"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/api/param"
	"github.com/agora-registry/registry/internal/api/problem"
	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store"
)

// Limits of the JSON API beyond those of the store.
const (
	maxReasonRunes = 500
	maxTagsLimit   = 1000
)

// publishJSON is the JSON form of a publish.
type publishJSON struct {
	Content *string  `json:"content"`
	Tags    []string `json:"tags"`
	// Name and Description stand in for a heading and first paragraph
	// (never for front matter), as in the paper demo's publish.
	Name        string `json:"name"`
	Description string `json:"description"`
}

// decodePublish reads a publish body: the raw document (text/markdown,
// text/plain, or no type) or JSON {"content","tags","name","description"}.
func decodePublish(c echo.Context) (registry.PublishRequest, error) {
	body, err := readSizedBody(c)
	if err != nil {
		return registry.PublishRequest{}, err
	}
	return parsePublishBody(c.Request().Header.Get(echo.HeaderContentType), body)
}

// commonPublishTypes are Content-Type values clients send (the registry's
// own send the first), with the media type mime.ParseMediaType reads from
// them: the usual publish skips its parameter map and copies.
var commonPublishTypes = map[string]string{
	"text/markdown; charset=utf-8":    "text/markdown",
	"text/markdown":                   "text/markdown",
	"text/plain; charset=utf-8":       "text/plain",
	"text/plain":                      "text/plain",
	"application/json":                "application/json",
	"application/json; charset=utf-8": "application/json",
}

// parsePublishBody is the decoder proper (fuzzed).
func parsePublishBody(contentType string, body []byte) (registry.PublishRequest, error) {
	mt, common := commonPublishTypes[contentType]
	if !common && contentType != "" {
		var err error
		if mt, _, err = mime.ParseMediaType(contentType); err != nil {
			return registry.PublishRequest{}, problem.ErrUnsupportedMedia
		}
	}
	switch mt {
	case "", "text/markdown", "text/plain", "text/x-markdown":
		return registry.PublishRequest{Content: body}, nil
	case "application/json":
		var p publishJSON
		if err := unmarshalStrict(body, &p); err != nil {
			return registry.PublishRequest{}, err
		}
		if p.Content == nil {
			return registry.PublishRequest{}, errBadJSON.With(`the JSON needs a "content" string holding the document`)
		}
		return registry.PublishRequest{Content: []byte(*p.Content), Tags: p.Tags,
			Given: protocol.Given{Title: p.Name, Description: p.Description}}, nil
	}
	return registry.PublishRequest{}, problem.ErrUnsupportedMedia
}

func (s *Server) publishProtocol(c echo.Context) error {
	req, err := decodePublish(c)
	if err != nil {
		return err
	}
	if req.Publisher, err = s.publishAs(c); err != nil {
		return err
	}
	if dry := c.QueryParam("dryRun"); dry == "true" || dry == "1" {
		res, err := s.svc.DryRun(c.Request().Context(), req)
		if err != nil {
			return err
		}
		view := protocolView(s.svc, res.Entry)
		view.DryRun, view.WouldCreate = true, &res.Created
		return writeJSON(c, http.StatusOK, view)
	}
	res, err := s.svc.PublishRequest(c.Request().Context(), req)
	if err != nil {
		return err
	}
	s.metrics.published(res.Created)
	status := http.StatusOK
	if res.Created {
		status = http.StatusCreated
	}
	view := protocolView(s.svc, res.Entry)
	c.Response().Header().Set(echo.HeaderLocation, "/api/v1/protocols/"+view.Hex)
	return writeJSON(c, status, view)
}

func (s *Server) getProtocol(c echo.Context) error {
	d, sub, err := param.PathHashSub(c, subVersions, subHistory, subAgents, subStatus)
	if err != nil && sub == "" {
		// A hex prefix, as listings show hashes: the one document it names.
		if prefix, perr := hexPrefix(c.Param("*")); perr == nil {
			d, err = s.svc.UniquePrefix(c.Request().Context(), prefix)
		} else if store.IsHex(c.Param("*")) {
			err = perr
		}
	}
	if err != nil {
		return err
	}
	switch sub {
	case subStatus:
		c.Response().Header().Set(echo.HeaderAllow, http.MethodPost)
		return echo.ErrMethodNotAllowed
	case subHistory:
		return s.protocolHistory(c, d)
	case subAgents:
		return s.protocolAgents(c, d)
	}
	withContent := c.QueryParam("content") == "1" || c.QueryParam("content") == "true"
	ctx := c.Request().Context()
	e, err := s.svc.Get(ctx, d, withContent)
	if err != nil {
		return err
	}
	if sub == subVersions {
		return s.protocolVersions(c, e)
	}
	view := protocolView(s.svc, s.svc.WithQueries(ctx, e))
	versions, err := s.svc.Versions(ctx, e)
	if err != nil {
		return err
	}
	view.Versions = versionsView(versions)
	views := []ProtocolView{view}
	if err := s.addSignals(ctx, views); err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, views[0])
}

// SearchResult is the JSON page of a browse or search. Exactly one of
// Total (an exact count) and EstimatedTotal is set; Suggestion respells a
// search that found nothing.
type SearchResult struct {
	Items          []ProtocolView `json:"items"`
	NextCursor     *string        `json:"nextCursor"`
	Total          *int           `json:"total,omitempty"`
	EstimatedTotal *int           `json:"estimatedTotal,omitempty"`
	Suggestion     string         `json:"suggestion,omitempty"`
}

func (s *Server) searchProtocols(c echo.Context) error {
	page, err := s.listPage(c)
	if err != nil {
		return err
	}
	out := SearchResult{Items: make([]ProtocolView, 0, len(page.Entries))}
	for _, e := range page.Entries {
		out.Items = append(out.Items, protocolView(s.svc, e))
	}
	if err := s.addSignals(c.Request().Context(), out.Items); err != nil {
		return err
	}
	if page.NextCursor != "" {
		out.NextCursor = &page.NextCursor
	}
	if isCatalog(c) { // a publisher's or the lineage heads' listing: no totals
		return writeJSON(c, http.StatusOK, out)
	}
	ctx := c.Request().Context()
	q, err := searchQuery(c)
	if err != nil {
		return err
	}
	sum, err := s.svc.Summarize(ctx, q, false)
	if err != nil {
		return err
	}
	if sum.Estimated {
		out.EstimatedTotal = &sum.Total
	} else {
		out.Total = &sum.Total
	}
	if len(page.Entries) == 0 && q.Cursor == "" && q.Text != "" {
		if out.Suggestion, err = s.svc.Suggest(ctx, q.Text); err != nil {
			return err
		}
	}
	return writeJSON(c, http.StatusOK, out)
}

// searchQuery reads ?q=&tag=…&sort=&limit=&cursor=, takes q's operators
// out (registry.ParseOperators); the store's Query.Normalize does the rest
// of the validation.
func searchQuery(c echo.Context) (store.Query, error) {
	qp := c.QueryParams()
	q := store.Query{Text: qp.Get("q"), Tags: qp["tag"], Sort: store.Sort(qp.Get("sort")), Cursor: qp.Get("cursor")}
	var err error
	if q.Limit, err = limitParam(qp.Get("limit")); err != nil {
		return q, err
	}
	if q, err = registry.ParseOperators(q); err != nil {
		return q, err
	}
	return q.Normalize()
}

// limitParam reads ?limit= (0 when absent).
func limitParam(l string) (int, error) {
	if l == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(l)
	if err != nil || n < 1 {
		return 0, apperr.New(apperr.Invalid, "invalid_limit", "limit must be a positive integer")
	}
	return n, nil
}

type withdrawJSON struct {
	Reason string `json:"reason"`
}

func (s *Server) withdrawProtocol(c echo.Context) error {
	d, err := param.PathHash(c)
	if err != nil {
		return err
	}
	body, err := readBody(c)
	if err != nil {
		return err
	}
	var w withdrawJSON
	if len(body) > 0 {
		if err := unmarshalStrict(body, &w); err != nil {
			return err
		}
	}
	if utf8.RuneCountInString(w.Reason) > maxReasonRunes || !utf8.ValidString(w.Reason) {
		return apperr.Newf(apperr.Invalid, "invalid_reason", "the reason must be valid UTF-8 of at most %d characters", maxReasonRunes)
	}
	if err := s.svc.Withdraw(c.Request().Context(), token(c), d, w.Reason); err != nil {
		return err
	}
	s.log.Info("protocol withdrawn", "requestId", RequestID(c), "hash", d.Hex())
	return c.NoContent(http.StatusNoContent)
}

// TagView is one tag with its count.
type TagView struct {
	Tag   string `json:"tag"`
	Count int    `json:"count"`
}

func (s *Server) tags(c echo.Context) error {
	limit := 100
	if l := c.QueryParam("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 {
			return apperr.New(apperr.Invalid, "invalid_limit", "limit must be a positive integer")
		}
		limit = min(n, maxTagsLimit)
	}
	tcs, err := s.svc.Tags(c.Request().Context(), limit)
	if err != nil {
		return err
	}
	out := struct {
		Tags []TagView `json:"tags"`
	}{Tags: make([]TagView, 0, len(tcs))}
	for _, t := range tcs {
		out.Tags = append(out.Tags, TagView{Tag: t.Tag, Count: t.Count})
	}
	return writeJSON(c, http.StatusOK, out)
}

func (s *Server) stats(c echo.Context) error {
	st, err := s.svc.Stats(c.Request().Context())
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, map[string]int{"documents": st.Documents, "withdrawn": st.Withdrawn, "tags": st.Tags})
}

// hexPrefix reads a path segment as a hash prefix (store.MinHashPrefix to
// 39 hex digits).
func hexPrefix(raw string) (store.HashPrefix, error) {
	if len(raw) >= 2*protocol.DigestSize {
		return store.HashPrefix{}, store.ErrMalformedPrefix
	}
	return store.ParseHashPrefix(raw)
}
