package api

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// DefaultDemoListLimit is how many entries one answer of the demo's GET /
// lists before a Link header continues the list.
const DefaultDemoListLimit = 10000

// home answers GET /: the HTML home page for browsers (when pages are
// configured), otherwise the demo's JSON list.
func (s *Server) home(c echo.Context) error {
	if s.pages != nil && WantsHTML(c.Request()) {
		return s.heavy.middleware(s.pages.Home)(c) // it searches
	}
	return s.heavy.lane(s.demoList)(c)
}

// demoList lists every listed document oldest first, as the demo's
// protocol DB did (its user agent searches the whole list), streamed a
// store chunk at a time: memory stays one chunk whatever the store holds,
// and no database connection waits on a slow client. Past DemoListLimit
// entries, a Link header names the next page (?after=).
func (s *Server) demoList(c echo.Context) error {
	after, err := parseListCursor(c.QueryParam("after"))
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	page, err := s.svc.Listing(ctx, after, s.cfg.DemoListLimit)
	if err != nil {
		return err
	}
	w := c.Response()
	h := w.Header()
	h.Add("Vary", "Accept")
	if page.Next != nil {
		h.Set("Link", "<"+s.svc.Config().PublicURL+"/?after="+formatListCursor(*page.Next)+`>; rel="next"`)
	}
	h.Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
	w.WriteHeader(http.StatusOK)

	// One chunk of the list's JSON at a time.
	buf := append(make([]byte, 0, 64<<10), `{"status":"success","protocols":[`...)
	first := true
	err = page.Each(ctx, func(l store.Listed) error {
		if !first {
			buf = append(buf, ',')
		}
		first = false
		buf = appendDemoListItem(buf, l)
		return nil
	}, func() error {
		_, err := w.Write(buf)
		buf = buf[:0]
		return err
	})
	if err != nil {
		// The status is sent: end the response unfinished, so the client
		// sees a broken transfer rather than a short list that parses.
		s.log.Warn("demo list failed after its first bytes", "requestId", RequestID(c), "error", err.Error())
		panic(http.ErrAbortHandler)
	}
	buf = append(buf, "]}\n"...)
	_, _ = w.Write(buf)
	return nil
}

// demoListItem is one entry of the list; id is the Base64 spelling, the
// demo's.
type demoListItem struct {
	ID          string `json:"id"`
	Hex         string `json:"hex"`
	Name        string `json:"name"`
	Description string `json:"description"`
}

func appendDemoListItem(buf []byte, l store.Listed) []byte {
	b, err := json.Marshal(demoListItem{ID: l.Digest.Base64(), Hex: l.Digest.Hex(), Name: l.Title, Description: l.Description})
	if err != nil {
		panic(err) // strings only: Marshal cannot fail
	}
	return append(buf, b...)
}

// A list cursor is the position a page starts after: "<Unix
// microseconds>.<hex digest>".
func formatListCursor(p store.ListPosition) string {
	return strconv.FormatInt(p.CreatedAt.UnixMicro(), 10) + "." + p.Digest.Hex()
}

func parseListCursor(s string) (*store.ListPosition, error) {
	if s == "" {
		return nil, nil
	}
	micros, hexText, ok := strings.Cut(s, ".")
	us, err := strconv.ParseInt(micros, 10, 64)
	if !ok || err != nil || len(hexText) != 40 {
		return nil, store.ErrInvalidCursor.With(`"after" must be the cursor of a Link header of this list`)
	}
	d, err := protocol.ParseDigest(hexText)
	if err != nil {
		return nil, store.ErrInvalidCursor.With(`"after" must be the cursor of a Link header of this list`)
	}
	return &store.ListPosition{CreatedAt: time.UnixMicro(us).UTC(), Digest: d}, nil
}
