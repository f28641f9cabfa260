package api

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/translog"
)

// changes is the change feed: the log's records from index after on.
func (s *Server) changes(c echo.Context) error {
	l, err := s.theLog()
	if err != nil {
		return err
	}
	after, limit, wait, err := s.feedParams(c)
	if err != nil {
		return err
	}
	if wait > 0 {
		leave, err := s.polls.enter(c)
		if err != nil {
			return err
		}
		defer leave()
	}
	ctx, stop := context.WithCancel(c.Request().Context())
	defer stop()
	defer context.AfterFunc(s.draining, stop)() // shutdown ends the wait
	out, err := l.Changes(ctx, after, limit, wait)
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return writeJSON(c, http.StatusOK, out)
}

// feedParams reads after, limit and wait; a wait longer than the write
// timeout allows is shortened so the answer is still written.
func (s *Server) feedParams(c echo.Context) (after int64, limit int, wait time.Duration, err error) {
	bad := store.ErrInvalid.With("the change feed takes after (records already read, from 0), limit (1 to " +
		strconv.Itoa(translog.MaxFeedLimit) + ") and wait (a duration up to " + translog.MaxFeedWait.String() + ")")
	limit = translog.DefaultFeedLimit
	if v := c.QueryParam("after"); v != "" {
		if after, err = strconv.ParseInt(v, 10, 64); err != nil || after < 0 {
			return 0, 0, 0, bad
		}
	}
	if v := c.QueryParam("limit"); v != "" {
		if limit, err = strconv.Atoi(v); err != nil || limit < 1 || limit > translog.MaxFeedLimit {
			return 0, 0, 0, bad
		}
	}
	if v := c.QueryParam("wait"); v != "" {
		if wait, err = time.ParseDuration(v); err != nil || wait < 0 || wait > translog.MaxFeedWait {
			return 0, 0, 0, bad
		}
	}
	if room := s.cfg.WriteTimeout - 5*time.Second; wait > room {
		wait = max(room, 0)
	}
	return after, limit, wait, nil
}
