package html

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/plural"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

type agentsPage struct {
	base
	AgentQuery            string
	Kind, Speaks, Dialect string
	Agents                []entity.Agent
	NextURL               string
	Error                 string
}

type agentPage struct {
	base
	Agent       entity.Agent
	Supported   []agentHash
	Unsupported []agentHash
}

// agentHash is one hash an agent lists; Title is set when this registry
// holds the document.
type agentHash struct {
	Hex, Title string
	Known      bool
	Sources    []string
}

var errNoDirectory = apperr.New(apperr.NotFound, "route_not_found", "no such endpoint")

// agents answers GET /agents: the directory, searchable.
func (p *Pages) agents(c echo.Context) error {
	if p.opts.Directory == nil {
		return errNoDirectory
	}
	qp := c.QueryParams()
	page := agentsPage{base: base{Title: "Agents", Nav: "agents", Query: ""}, Kind: qp.Get("kind"), Speaks: qp.Get("speaks"),
		Dialect: qp.Get("dialect")}
	q := store.AgentQuery{Text: qp.Get("q"), Kind: page.Kind, Dialect: page.Dialect, Cursor: qp.Get("cursor")}
	status := http.StatusOK
	var err error
	if page.Speaks != "" {
		var d protocol.Digest
		if d, err = protocol.ParseDigest(page.Speaks); err == nil {
			q.Speaks = &d
		}
	}
	if err == nil {
		var res store.AgentPage
		if res, err = p.opts.Directory.List(c.Request().Context(), q); err == nil {
			page.Agents = res.Agents
			if res.NextCursor != "" {
				v := url.Values{}
				for k, val := range map[string]string{"q": q.Text, "kind": q.Kind, "dialect": q.Dialect, "speaks": page.Speaks, "cursor": res.NextCursor} {
					if val != "" {
						v.Set(k, val)
					}
				}
				page.NextURL = "/agents?" + v.Encode()
			}
		}
	}
	if err != nil {
		ae := apperr.As(err)
		if ae == nil || ae.Kind != apperr.Invalid {
			return err
		}
		status, page.Error = http.StatusBadRequest, ae.Message
	}
	page.AgentQuery = q.Text
	return p.render(c, status, "agents", page)
}

// agent answers GET /agents/{id}.
func (p *Pages) agent(c echo.Context) error {
	if p.opts.Directory == nil {
		return errNoDirectory
	}
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id < 1 {
		return apperr.New(apperr.NotFound, "agent_not_found", "no agent with this id is registered")
	}
	ctx := c.Request().Context()
	a, err := p.opts.Directory.Get(ctx, id)
	if err != nil {
		return err
	}
	page := agentPage{base: base{Title: agentName(a), Nav: "agents"}, Agent: a}
	ds := make([]protocol.Digest, 0, len(a.Supported)+len(a.Unsupported))
	for _, s := range a.Supported {
		ds = append(ds, s.Digest)
	}
	ds = append(ds, a.Unsupported...)
	titles, err := p.titles(ctx, ds)
	if err != nil {
		return err
	}
	for _, s := range a.Supported {
		t, ok := titles[s.Digest]
		page.Supported = append(page.Supported, agentHash{Hex: s.Digest.Hex(), Title: t, Known: ok, Sources: s.Sources})
	}
	for _, d := range a.Unsupported {
		t, ok := titles[d]
		page.Unsupported = append(page.Unsupported, agentHash{Hex: d.Hex(), Title: t, Known: ok})
	}
	return p.render(c, http.StatusOK, "agent", page)
}

// titles maps the listed, stored documents among ds to their titles.
func (p *Pages) titles(ctx context.Context, ds []protocol.Digest) (map[protocol.Digest]string, error) {
	out := map[protocol.Digest]string{}
	for i := 0; i < len(ds); i += store.MaxResolve {
		res, err := p.svc.Resolve(ctx, ds[i:min(len(ds), i+store.MaxResolve)])
		if err != nil {
			return nil, err
		}
		for _, r := range res {
			if r.Found && !r.Withdrawn {
				out[r.Digest] = displayTitle(r.Title, r.Digest)
			}
		}
	}
	return out, nil
}

// agentName names an agent that gave no name by its URL.
func agentName(a entity.Agent) string {
	if a.Name != "" {
		return a.Name
	}
	return strings.TrimPrefix(strings.TrimPrefix(a.URL, "https://"), "http://")
}

// adoptionView is the protocol page's adoption partial: who speaks the
// protocol, who refuses it, and its 30-day sparkline of distinct clients
// (what sort=popular ranks by) beside the raw request counts.
type adoptionView struct {
	Hex                          string
	Speaking, Refusing           []entity.Agent
	SpeakingCount, RefusingCount int
	Fetches, Resolutions         int64
	Clients                      string // each day's distinct clients, summed, in words
	Points                       string // the sparkline's polyline
	Label                        string // the sparkline in words
}

const sparkWidth, sparkHeight = 120, 24

const clientsLabel = "Distinct clients"

// adoption builds the partial; a failure leaves it out of the page.
func (p *Pages) adoption(ctx context.Context, d protocol.Digest) *adoptionView {
	v := &adoptionView{Hex: d.Hex()}
	if p.opts.Directory != nil {
		pa, err := p.opts.Directory.For(ctx, d)
		if err != nil {
			p.log.Warn("listing a protocol's agents failed", "hash", d.Hex(), "error", err)
			return nil
		}
		v.Speaking, v.Refusing, v.SpeakingCount, v.RefusingCount = pa.Speaking, pa.Refusing, pa.SpeakingCount, pa.RefusingCount
	}
	days, err := p.svc.AdoptionDays(ctx, d)
	if err != nil {
		p.log.Warn("reading a protocol's adoption failed", "hash", d.Hex(), "error", err)
		return nil
	}
	var peak, clients int64 = 1, 0
	for _, day := range days {
		v.Fetches += day.Fetches
		v.Resolutions += day.Resolutions
		clients += day.Clients
		peak = max(peak, day.Clients)
	}
	pts := make([]string, len(days))
	for i, day := range days {
		x := float64(i) * sparkWidth / float64(max(1, len(days)-1))
		y := sparkHeight - 1 - float64(day.Clients)*(sparkHeight-2)/float64(peak)
		pts[i] = fmt.Sprintf("%.1f,%.1f", x, y)
	}
	v.Points = strings.Join(pts, " ")
	v.Label = fmt.Sprintf("%s a day over the last %s (%s in all)", clientsLabel, plural.Of(len(days), "day"), plural.Count(clients, "client", "clients"))
	v.Clients = plural.Count(clients, "distinct client", "distinct clients")
	return v
}
