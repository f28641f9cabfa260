package api

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/api/param"
	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/translog"
)

var errNoLog = apperr.New(apperr.NotFound, "log_disabled", "this registry keeps no transparency log")

// theLog is the service's log, or errNoLog.
func (s *Server) theLog() (*translog.Log, error) {
	if l := s.svc.Log(); l != nil {
		return l, nil
	}
	return nil, errNoLog
}

// writeLogText answers a log text: a checkpoint changes with every
// integration, so caches must ask again.
func writeLogText(c echo.Context, body []byte, cache string) error {
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, "text/plain; charset=utf-8")
	h.Set("Cache-Control", cache)
	return c.Blob(http.StatusOK, "text/plain; charset=utf-8", body)
}

func (s *Server) logCheckpoint(c echo.Context) error {
	l, err := s.theLog()
	if err != nil {
		return err
	}
	cp, err := l.Checkpoint(c.Request().Context())
	if err != nil {
		return err
	}
	return writeLogText(c, cp, "no-cache")
}

// logTile serves tlog tiles; a full tile never changes, a partial one is
// replaced by a wider one as the log grows.
func (s *Server) logTile(c echo.Context) error {
	l, err := s.theLog()
	if err != nil {
		return err
	}
	data, full, err := l.Tile(c.Request().Context(), "tile/"+c.Param("*"))
	if err != nil {
		return err
	}
	cache := "public, max-age=10"
	if full {
		cache = "public, max-age=31536000, immutable"
	}
	c.Response().Header().Set("Cache-Control", cache)
	return c.Blob(http.StatusOK, "application/octet-stream", data)
}

func (s *Server) logLookup(c echo.Context) error {
	l, err := s.theLog()
	if err != nil {
		return err
	}
	d, err := param.PathHash(c)
	if err != nil {
		return err
	}
	msg, err := l.Lookup(c.Request().Context(), d)
	if err != nil {
		return err
	}
	return writeLogText(c, msg, "no-cache")
}

func (s *Server) logRecord(c echo.Context) error {
	l, err := s.theLog()
	if err != nil {
		return err
	}
	id, err := recordID(c.Param("id"))
	if err != nil {
		return err
	}
	text, err := l.Record(c.Request().Context(), id)
	if err != nil {
		return err
	}
	return writeLogText(c, text, "public, max-age=31536000, immutable")
}

// errBadRecordID refuses a record id that is not canonical decimal: the
// answer is cached as immutable, so one record has one URL.
var errBadRecordID = apperr.New(apperr.Invalid, "bad_record_id",
	"a record id is a decimal number from 0, without sign or leading zeros")

// recordID reads a record id; one past int64 is beyond any log (404).
func recordID(s string) (int64, error) {
	if s == "" || strings.Trim(s, "0123456789") != "" || (len(s) > 1 && s[0] == '0') {
		return 0, errBadRecordID
	}
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, translog.ErrNoRecord
	}
	return id, nil
}

// tlogProofExt names a document's proof: /protocol/{hash}.tlog-proof.
const tlogProofExt = ".tlog-proof"

// tlogProof answers a document's c2sp.org/tlog-proof@v1 proof. It is
// against the latest checkpoint, so it is cached briefly, as a partial
// tile is; any proof stays valid.
func (s *Server) tlogProof(c echo.Context, d protocol.Digest) error {
	l, err := s.theLog()
	if err != nil {
		return err
	}
	proof, err := l.Proof(c.Request().Context(), d)
	if err != nil {
		return err
	}
	return writeLogText(c, proof, "public, max-age=10")
}
