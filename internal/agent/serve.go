package agent

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// Server timeouts. WriteTimeout leaves room for the longest transaction.
const (
	readHeaderTimeout = 10 * time.Second
	readTimeout       = 30 * time.Second
	idleTimeout       = 120 * time.Second
	maxHeaderBytes    = 64 << 10
	shutdownGrace     = 15 * time.Second
)

// Server builds the http.Server for the agent, with every timeout set.
func (a *Agent) Server(addr string) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           a.Handler(),
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      a.cfg.Limits.RequestTimeout + 10*time.Second,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(a.log.Handler(), slog.LevelWarn),
	}
}

// Serve listens on ln until ctx is cancelled, then shuts down gracefully,
// letting in-flight transactions finish (up to a grace period).
func (a *Agent) Serve(ctx context.Context, ln net.Listener) error {
	announcers, err := a.announcers(a.PublicURL(ln.Addr()))
	if err != nil {
		return err
	}
	srv := a.Server(ln.Addr().String())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	a.log.Info("agent listening", "addr", ln.Addr().String(), "name", a.cfg.Name, "protocols", len(a.handler.Supported()))
	// Announcing runs beside serving and never holds it up.
	announceCtx, stopAnnouncing := context.WithCancel(ctx)
	defer a.announce(announceCtx, announcers)()
	defer stopAnnouncing()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	a.log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Addr is the configured listen address.
func (a *Agent) Addr() string { return a.cfg.Addr }

// statusRecorder remembers the status code for the access log.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	s.status = code
	s.ResponseWriter.WriteHeader(code)
}

func (a *Agent) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(rec, r)
		// The registry's field names (internal/api), so one query reads both logs.
		a.log.Info("request", "method", r.Method, "path", r.URL.Path, "status", rec.status,
			"durationMs", float64(time.Since(start).Microseconds())/1000, "client", peerIP(r.RemoteAddr))
	})
}

// peerIP is the address part of a peer's host:port.
func peerIP(remote string) string {
	if host, _, err := net.SplitHostPort(remote); err == nil {
		return host
	}
	return remote
}
