package harness

import (
	"context"
	"net"
	"net/http"
	"strings"
	"time"
)

// BaselineHandler is the "HTTP limit of the machine": the same document
// bytes and headers as the registry's raw endpoint, answered from a map.
func BaselineHandler(docs map[string][]byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hex, ok := strings.CutPrefix(r.URL.Path, "/protocol/")
		doc, found := docs[hex]
		if !ok || !found {
			http.NotFound(w, r)
			return
		}
		h := w.Header()
		etag := `"` + hex + `"`
		h["Etag"] = []string{etag}
		h["Cache-Control"] = []string{"public, max-age=31536000, immutable"}
		h["X-Content-Type-Options"] = []string{"nosniff"}
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		h["Content-Type"] = []string{"text/plain; charset=utf-8"}
		if r.Method == http.MethodHead {
			w.WriteHeader(http.StatusOK)
			return
		}
		_, _ = w.Write(doc)
	})
}

// ServeBaseline runs the baseline server until ctx ends. It is started as a
// separate process (benchrun baseline-server) so it competes for the CPU the
// way the registry does.
func ServeBaseline(ctx context.Context, addr, dir string) error {
	docs, err := LoadDir(dir)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           BaselineHandler(docs),
		ReadHeaderTimeout: 5 * time.Second,
		IdleTimeout:       60 * time.Second,
	}
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shut)
	}()
	if err := srv.Serve(ln); err != http.ErrServerClosed {
		return err
	}
	return nil
}
