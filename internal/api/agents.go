package api

import (
	"errors"
	"net/http"
	"net/netip"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/adoption"
	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/directory"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// WithAdoption counts raw fetches and resolutions in c.
func WithAdoption(c *adoption.Counter) Option { return func(s *Server) { s.adoption = c } }

// adoptionClient is who r counts as in the distinct-client counts: the
// address the IP extractor reads (X-Forwarded-For only from trusted
// proxies), an IPv6 one by its IPv6ClientPrefix (/64). Nothing when
// nothing is counted.
func (s *Server) adoptionClient(r *http.Request) netip.Addr {
	if s.adoption == nil {
		return netip.Addr{}
	}
	key, _ := ClientKey(s.echo.IPExtractor(r), s.cfg.IPv6ClientPrefix)
	return key
}

// WithDirectory serves the agent directory under /api/v1/agents.
func WithDirectory(d *directory.Directory) Option { return func(s *Server) { s.directory = d } }

// AgentView is the JSON form of a registered agent. Supported and
// Unsupported are set on the one-agent view only.
type AgentView struct {
	ID               int64           `json:"id"`
	URL              string          `json:"url"`
	Name             string          `json:"name"`
	Description      string          `json:"description"`
	Kinds            []string        `json:"kinds"`
	WellKnownURL     string          `json:"wellKnownUrl"`
	RegisteredAt     time.Time       `json:"registeredAt"`
	LastSeen         *time.Time      `json:"lastSeen"`
	LastCrawled      *time.Time      `json:"lastCrawled"`
	LastError        string          `json:"lastError"`
	Failures         int             `json:"failures"`
	CrawlStatus      string          `json:"crawlStatus"`
	NextCrawl        time.Time       `json:"nextCrawl"`
	SupportedCount   int             `json:"supportedCount"`
	UnsupportedCount int             `json:"unsupportedCount"`
	Supported        []AgentHashView `json:"supported,omitempty"`
	Unsupported      []AgentHashView `json:"unsupported,omitempty"`
	HTMLURL          string          `json:"htmlUrl"`
	// Dialects names what the record holds: "agora", "a2a", "ard".
	Dialects      []string                    `json:"dialects"`
	DialectStates map[string]DialectStateView `json:"dialectStates"`
	// CardSignature is the A2A card's signature state, nil without a card.
	CardSignature *string `json:"cardSignature"`
	// A2A and ARD are set on the one-agent view only (nil: none).
	A2A *entity.AgentCard     `json:"a2a,omitempty"`
	ARD *entity.AgentManifest `json:"ard,omitempty"`
}

// DialectStateView is how one dialect's last read went.
type DialectStateView struct {
	Error    string `json:"error"`
	Failures int    `json:"failures"`
}

// AgentHashView is one hash an agent lists. Known tells whether this
// registry holds the document (an agent may list one that lives elsewhere).
type AgentHashView struct {
	Hex     string   `json:"hex"`
	Base64  string   `json:"base64"`
	Sources []string `json:"sources,omitempty"`
	Known   bool     `json:"known"`
	Title   string   `json:"title,omitempty"`
}

// AgentsPage is a page of agents.
type AgentsPage struct {
	Items      []AgentView `json:"items"`
	NextCursor *string     `json:"nextCursor"`
}

// ProtocolAgentsView answers GET /api/v1/protocols/{hash}/agents.
type ProtocolAgentsView struct {
	Hex           string      `json:"hex"`
	Speaking      []AgentView `json:"speaking"`
	SpeakingCount int         `json:"speakingCount"`
	Refusing      []AgentView `json:"refusing"`
	RefusingCount int         `json:"refusingCount"`
}

type registerAgentJSON struct {
	URL string `json:"url"`
}

func (s *Server) agentRoutes(v1 *echo.Group) {
	if s.directory == nil {
		return
	}
	v1.POST("/agents", s.registerAgent, s.requireScope("publish"), s.publishLimit)
	v1.GET("/agents", s.listAgents, s.heavy.middleware)
	v1.GET("/agents/:id", s.getAgent)
}

func (s *Server) agentView(a entity.Agent) AgentView {
	return AgentView{ID: a.ID, URL: a.URL, Name: a.Name, Description: a.Description, Kinds: store.NonNil(a.Kinds), WellKnownURL: a.WellKnownURL,
		RegisteredAt: a.RegisteredAt, LastSeen: a.LastSeen, LastCrawled: a.LastCrawled, LastError: a.LastError,
		Failures: a.Failures, CrawlStatus: s.crawlStatus(a), NextCrawl: a.NextCrawl, SupportedCount: a.SupportedCount,
		UnsupportedCount: a.UnsupportedCount, HTMLURL: s.svc.Config().PublicURL + "/agents/" + strconv.FormatInt(a.ID, 10),
		Dialects: a.Dialects(), CardSignature: cardSignature(a),
		DialectStates: map[string]DialectStateView{
			entity.DialectAgora: DialectStateView(a.Agora),
			entity.DialectA2A:   DialectStateView(a.A2AState),
			entity.DialectARD:   DialectStateView(a.ARDState),
		}}
}

func cardSignature(a entity.Agent) *string {
	if a.CardSignature == "" {
		return nil
	}
	return &a.CardSignature
}

// crawlStatus is "pending" while a crawl of the agent is queued or running
// (or none has run yet), else how the last crawl went: "ok" or "failed".
func (s *Server) crawlStatus(a entity.Agent) string {
	switch {
	case a.LastCrawled == nil || s.directory != nil && s.directory.Crawling(a.URL):
		return "pending"
	case a.LastError != "":
		return "failed"
	}
	return "ok"
}

// fullAgentView adds the agent's lists, each hash marked known or not.
func (s *Server) fullAgentView(c echo.Context, a entity.Agent) (AgentView, error) {
	v := s.agentView(a)
	v.A2A, v.ARD = a.A2A, a.ARD
	ds := make([]protocol.Digest, 0, len(a.Supported)+len(a.Unsupported))
	for _, p := range a.Supported {
		ds = append(ds, p.Digest)
	}
	ds = append(ds, a.Unsupported...)
	known := map[protocol.Digest]store.Resolution{}
	for i := 0; i < len(ds); i += store.MaxResolve {
		res, err := s.svc.Resolve(c.Request().Context(), ds[i:min(len(ds), i+store.MaxResolve)])
		if err != nil {
			return v, err
		}
		for _, r := range res {
			if r.Found && !r.Withdrawn {
				known[r.Digest] = r
			}
		}
	}
	hashView := func(d protocol.Digest, sources []string) AgentHashView {
		r, ok := known[d]
		return AgentHashView{Hex: d.Hex(), Base64: d.Base64(), Sources: sources, Known: ok, Title: r.Title}
	}
	v.Supported, v.Unsupported = []AgentHashView{}, []AgentHashView{}
	for _, p := range a.Supported {
		v.Supported = append(v.Supported, hashView(p.Digest, p.Sources))
	}
	for _, d := range a.Unsupported {
		v.Unsupported = append(v.Unsupported, hashView(d, nil))
	}
	return v, nil
}

func (s *Server) registerAgent(c echo.Context) error {
	body, err := readSizedBody(c)
	if err != nil {
		return err
	}
	var r registerAgentJSON
	if err := unmarshalStrict(body, &r); err != nil {
		return err
	}
	if r.URL == "" {
		return errBadJSON.With(`the JSON needs a "url" string: the agent's base URL`)
	}
	client, _ := ClientKey(c.RealIP(), s.cfg.IPv6ClientPrefix)
	reg, err := s.directory.Submit(c.Request().Context(), r.URL, client.String())
	switch {
	case errors.Is(err, directory.ErrQueueFull):
		return &retryAfterError{err: apperr.As(err), seconds: overloadRetrySeconds}
	case errors.Is(err, store.ErrAgentDailyCap):
		return &retryAfterError{err: apperr.As(err), seconds: 3600}
	case err != nil:
		return err
	}
	a := reg.Agent
	s.log.Info("agent registered", "requestId", RequestID(c), "agent", a.ID, "created", reg.Created, "pending", reg.Pending)
	v, err := s.fullAgentView(c, a)
	if err != nil {
		return err
	}
	status := http.StatusOK
	switch {
	case reg.Pending:
		status = http.StatusAccepted // its record shows the crawl's outcome
	case reg.Created:
		status = http.StatusCreated
	}
	c.Response().Header().Set(echo.HeaderLocation, "/api/v1/agents/"+strconv.FormatInt(a.ID, 10))
	return writeJSON(c, status, v)
}

var errBadAgentID = apperr.New(apperr.Invalid, "invalid_agent_id", "an agent id is a positive integer")

func (s *Server) getAgent(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id < 1 {
		return errBadAgentID
	}
	a, err := s.directory.Get(c.Request().Context(), id)
	if err != nil {
		return err
	}
	v, err := s.fullAgentView(c, a)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, v)
}

// AgentQuery reads ?speaks=&kind=&dialect=&q=&limit=&cursor= (also the pages').
func AgentQuery(c echo.Context) (store.AgentQuery, error) {
	qp := c.QueryParams()
	q := store.AgentQuery{Kind: qp.Get("kind"), Dialect: qp.Get("dialect"), Text: qp.Get("q"), Cursor: qp.Get("cursor")}
	if h := qp.Get("speaks"); h != "" {
		d, err := protocol.ParseDigest(h)
		if err != nil {
			return q, err
		}
		q.Speaks = &d
	}
	if l := qp.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 {
			return q, apperr.New(apperr.Invalid, "invalid_limit", "limit must be a positive integer")
		}
		q.Limit = n
	}
	_, _, err := q.Normalize()
	return q, err
}

func (s *Server) listAgents(c echo.Context) error {
	q, err := AgentQuery(c)
	if err != nil {
		return err
	}
	page, err := s.directory.List(c.Request().Context(), q)
	if err != nil {
		return err
	}
	out := AgentsPage{Items: make([]AgentView, 0, len(page.Agents))}
	for _, a := range page.Agents {
		out.Items = append(out.Items, s.agentView(a))
	}
	if page.NextCursor != "" {
		out.NextCursor = &page.NextCursor
	}
	return writeJSON(c, http.StatusOK, out)
}

// protocolAgents answers GET /api/v1/protocols/{hash}/agents: who speaks
// the protocol and who explicitly does not.
func (s *Server) protocolAgents(c echo.Context, d protocol.Digest) error {
	if s.directory == nil {
		return echo.ErrNotFound
	}
	pa, err := s.directory.For(c.Request().Context(), d)
	if err != nil {
		return err
	}
	out := ProtocolAgentsView{Hex: d.Hex(), SpeakingCount: pa.SpeakingCount, RefusingCount: pa.RefusingCount,
		Speaking: make([]AgentView, 0, len(pa.Speaking)), Refusing: make([]AgentView, 0, len(pa.Refusing))}
	for _, a := range pa.Speaking {
		out.Speaking = append(out.Speaking, s.agentView(a))
	}
	for _, a := range pa.Refusing {
		out.Refusing = append(out.Refusing, s.agentView(a))
	}
	return writeJSON(c, http.StatusOK, out)
}
