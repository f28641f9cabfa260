// Package healthcheck is the container health probe shared by the registry
// and agent binaries: the final image has no shell or curl, so each binary
// checks itself with `<binary> healthcheck`.
package healthcheck

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// Timeout bounds one probe; the Dockerfile's HEALTHCHECK allows 3 s.
const Timeout = 2 * time.Second

// maxBody caps how much of the answer is read: a health answer is tiny.
const maxBody = 4 << 10

// URL turns a listen address (":8080", "0.0.0.0:8080", "[::]:8080",
// "127.0.0.1:8080") into the loopback /healthz URL of the same port. The
// probe runs inside the container, so loopback is always the right host,
// even when the server listens on every interface.
func URL(listenAddr string) (string, error) {
	_, port, err := net.SplitHostPort(listenAddr)
	if err != nil {
		return "", fmt.Errorf("listen address %q: %w", listenAddr, err)
	}
	if port == "" || port == "0" {
		return "", fmt.Errorf("listen address %q has no fixed port to probe", listenAddr)
	}
	return "http://" + net.JoinHostPort("127.0.0.1", port) + "/healthz", nil
}

// Probe GETs url and succeeds only on a 200 within Timeout.
func Probe(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	// No proxy: a probe of loopback must never leave the container.
	client := &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
	res, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("GET %s: %w", url, err)
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, maxBody))
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: status %d", url, res.StatusCode)
	}
	return nil
}
