package html

import (
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/translog"
)

// logRecent is how many of the log's latest records the log page lists.
const logRecent = 20

type logPage struct {
	base
	Enabled     bool
	Origin      string
	VerifierKey string
	Size        int64
	Root        string
	Checkpoint  string // the signed note as served
	Recent      []logRow
	PublicURL   string
	// Witnesses, when the log has any: how many of them cosigned the
	// newest checkpoint against the quorum asked for, and each one's state
	// (names and sizes only: a failure's text may name private addresses).
	Witnesses    []translog.WitnessStatus
	Cosignatures int
	Quorum       int
}

type logRow struct {
	translog.Change
	Title string
}

// logPage answers GET /log: the transparency log for people: what the
// latest checkpoint says, the latest changes, and how to check them.
func (p *Pages) logPage(c echo.Context) error {
	ctx := c.Request().Context()
	page := logPage{base: base{Title: "Transparency log", Nav: "log"}, PublicURL: p.svc.PublicURL()}
	l := p.svc.Log()
	if l == nil {
		return p.render(c, http.StatusOK, "log", page)
	}
	page.Enabled, page.Origin, page.VerifierKey = true, l.Origin(), l.VerifierKey()
	cp, err := l.Checkpoint(ctx)
	if err != nil {
		return err
	}
	page.Checkpoint = string(cp)
	body, _, _ := strings.Cut(page.Checkpoint, "\n\n")
	if parsed, err := agora.ParseLogCheckpoint(body + "\n"); err == nil {
		page.Size, page.Root = parsed.N, parsed.Hash.String()
	}
	if c := l.Cosigner(); c != nil {
		if n, quorum, ws, err := c.Status(ctx); err == nil {
			page.Cosignatures, page.Quorum, page.Witnesses = n, quorum, ws
		}
	}
	if page.Size > 0 {
		changes, err := l.Changes(ctx, max(0, page.Size-logRecent), logRecent, 0)
		if err != nil {
			return err
		}
		ds := make([]protocol.Digest, 0, len(changes.Changes))
		for _, ch := range changes.Changes {
			if d, err := protocol.ParseDigest(ch.Hex); err == nil {
				ds = append(ds, d)
			}
		}
		titles := map[string]string{}
		if res, err := p.svc.Resolve(ctx, ds); err == nil {
			for _, r := range res {
				titles[r.Digest.Hex()] = r.Title
			}
		}
		for _, ch := range slices.Backward(changes.Changes) {
			page.Recent = append(page.Recent, logRow{Change: ch, Title: titles[ch.Hex]})
		}
	}
	c.Response().Header().Set("Cache-Control", "no-cache")
	return p.render(c, http.StatusOK, "log", page)
}
