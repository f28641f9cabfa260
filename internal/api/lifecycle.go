package api

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/api/param"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/registry"
)

// Sub-resources of /api/v1/protocols/{hash}.
const (
	subVersions = "versions"
	subHistory  = "history"
	subStatus   = "status"
	subAgents   = "agents"
)

// token is the request's authenticated token (the zero token when none).
func token(c echo.Context) entity.Token {
	tok, _ := c.Get(tokenKey).(entity.Token)
	return tok
}

// statusJSON is the body of POST /api/v1/protocols/{hash}/status.
type statusJSON struct {
	Status      string `json:"status"`
	Message     string `json:"message"`
	Replacement string `json:"replacement"`
}

// postProtocolSub answers POST /api/v1/protocols/{hash}/status.
func (s *Server) postProtocolSub(c echo.Context) error {
	// Every sub-resource is named, so POST to one that is only read says
	// so (405) instead of reading ".../history" as a malformed hash.
	d, sub, err := param.PathHashSub(c, subStatus, subVersions, subHistory)
	if err != nil {
		return err
	}
	if sub != subStatus {
		c.Response().Header().Set(echo.HeaderAllow, http.MethodGet)
		return echo.ErrMethodNotAllowed
	}
	body, err := readBody(c)
	if err != nil {
		return err
	}
	var in statusJSON
	if err := unmarshalStrict(body, &in); err != nil {
		return err
	}
	req := registry.StatusRequest{Status: entity.Status(in.Status), Message: in.Message}
	if in.Replacement != "" {
		r, err := protocol.ParseDigest(in.Replacement)
		if err != nil {
			return protocol.ErrMalformedDigest.With("the replacement is not a protocol hash (40 hex digits or 28 Base64 characters)")
		}
		req.Replacement = &r
	}
	e, err := s.svc.SetStatus(c.Request().Context(), token(c), d, req)
	if err != nil {
		return err
	}
	s.log.Info("protocol status changed", "requestId", RequestID(c), "hash", d.Hex(), "status", string(e.Status()))
	return writeJSON(c, http.StatusOK, protocolView(s.svc, e))
}

// VersionItem is one document of a lineage.
type VersionItem struct {
	Hex       string    `json:"hex"`
	Title     string    `json:"title"`
	Version   string    `json:"version,omitempty"`
	Publisher string    `json:"publisher"`
	Status    string    `json:"status"`
	CreatedAt time.Time `json:"createdAt"`
	// Latest marks the newest active version; Current the one asked for.
	Latest  bool `json:"latest"`
	Current bool `json:"current"`
}

// VersionsAnswer is GET /api/v1/protocols/{hash}/versions.
type VersionsAnswer struct {
	Hex string `json:"hex"`
	// Versions is the lineage within the document's publisher, oldest first.
	Versions []VersionItem `json:"versions"`
	// Claims are other publishers' documents that say they supersede this
	// one: never its versions.
	Claims []VersionRef `json:"claims"`
}

func (s *Server) protocolVersions(c echo.Context, e entity.Entry) error {
	v, err := s.svc.VersionList(c.Request().Context(), e)
	if err != nil {
		return err
	}
	out := VersionsAnswer{Hex: e.Digest.Hex(), Versions: make([]VersionItem, 0, len(v.Lineage)), Claims: []VersionRef{}}
	for i, l := range v.Lineage {
		out.Versions = append(out.Versions, VersionItem{Hex: l.Digest.Hex(), Title: l.Metadata.Title, Version: l.Metadata.Version,
			Publisher: l.Publisher, Status: string(l.Status()), CreatedAt: l.CreatedAt.UTC(), Latest: i == v.Latest, Current: l.Digest == e.Digest})
	}
	for _, cl := range v.Claims {
		out.Claims = append(out.Claims, VersionRef{Hex: cl.Digest.Hex(), Title: cl.Metadata.Title, Publisher: cl.Publisher})
	}
	return writeJSON(c, http.StatusOK, out)
}

// HistoryEvent is one status change.
type HistoryEvent struct {
	At          time.Time `json:"at"`
	Actor       string    `json:"actor"`
	Status      string    `json:"status"`
	Message     string    `json:"message,omitempty"`
	Replacement string    `json:"replacement,omitempty"`
}

// HistoryAnswer is GET /api/v1/protocols/{hash}/history.
type HistoryAnswer struct {
	Hex    string         `json:"hex"`
	Events []HistoryEvent `json:"events"`
}

func (s *Server) protocolHistory(c echo.Context, d protocol.Digest) error {
	evs, err := s.svc.History(c.Request().Context(), d)
	if err != nil {
		return err
	}
	out := HistoryAnswer{Hex: d.Hex(), Events: make([]HistoryEvent, 0, len(evs))}
	for _, ev := range evs {
		h := HistoryEvent{At: ev.At.UTC(), Actor: ev.Actor, Status: string(ev.Status), Message: ev.Message}
		if ev.Replacement != nil {
			h.Replacement = ev.Replacement.Hex()
		}
		out.Events = append(out.Events, h)
	}
	return writeJSON(c, http.StatusOK, out)
}

// PublisherView is the JSON form of a publisher account.
type PublisherView struct {
	Name           string     `json:"name"`
	DisplayName    string     `json:"displayName"`
	VerifiedDomain *string    `json:"verifiedDomain"`
	VerifiedAt     *time.Time `json:"verifiedAt,omitempty"`
	// CreatedAt is absent for a name documents carry without an account
	// (imported under it).
	CreatedAt    *time.Time `json:"createdAt,omitempty"`
	HTMLURL      string     `json:"htmlUrl"`
	ProtocolsURL string     `json:"protocolsUrl"`
}

func publisherView(svc *registry.Service, p entity.Publisher) PublisherView {
	v := PublisherView{Name: p.Name, DisplayName: p.DisplayName, VerifiedAt: p.VerifiedAt,
		HTMLURL:      svc.Config().PublicURL + "/publishers/" + p.Name,
		ProtocolsURL: svc.Config().PublicURL + "/api/v1/protocols?publisher=" + p.Name}
	if p.VerifiedDomain != "" {
		v.VerifiedDomain = &p.VerifiedDomain
	}
	if !p.CreatedAt.IsZero() {
		at := p.CreatedAt.UTC()
		v.CreatedAt = &at
	}
	return v
}

func (s *Server) getPublisher(c echo.Context) error {
	p, err := s.svc.Publisher(c.Request().Context(), c.Param("name"))
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, publisherView(s.svc, p))
}
