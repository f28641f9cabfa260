package routine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/agora-registry/registry/agora"
)

// HTTP forwards the request body to a URL the operator configured and
// answers with the response body. The URL comes from the operator's config,
// so it is trusted and not SSRF-guarded.
type HTTP struct {
	URL         string
	Timeout     time.Duration // 0 means DefaultExecTimeout
	MaxResponse int           // 0 means DefaultMaxOutput
	Client      *http.Client  // nil means a plain client without proxy
}

// Answer implements Routine.
func (h *HTTP) Answer(ctx context.Context, req Request) (string, error) {
	timeout := h.Timeout
	if timeout <= 0 {
		timeout = DefaultExecTimeout
	}
	maxResp := h.MaxResponse
	if maxResp <= 0 {
		maxResp = DefaultMaxOutput
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, h.URL, bytes.NewReader([]byte(req.Body)))
	if err != nil {
		return "", failed(ErrCrashed, "the http routine's URL %s is malformed", agora.RedactURL(h.URL))
	}
	if json.Valid([]byte(req.Body)) {
		r.Header.Set("Content-Type", "application/json")
	} else {
		r.Header.Set("Content-Type", "text/plain; charset=utf-8")
	}
	client := h.Client
	if client == nil {
		client = &http.Client{Transport: &http.Transport{Proxy: nil}}
	}
	// The URL is the operator's secret (it may carry a password or a key):
	// the sender gets the sentinel's message, the log the redacted detail.
	where := agora.RedactURL(h.URL)
	resp, err := client.Do(r)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return "", ErrTimeout.With(fmt.Sprintf("the routine did not answer within %s", timeout))
		}
		return "", failed(ErrCrashed, "POST %s: %v", where, agora.RedactError(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, int64(maxResp)+1))
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return "", ErrTimeout.With(fmt.Sprintf("the routine did not answer within %s", timeout))
		}
		return "", failed(ErrCrashed, "reading the answer of POST %s: %v", where, agora.RedactError(err))
	}
	if len(body) > maxResp {
		return "", ErrTooLarge.With(fmt.Sprintf("the routine answered more than %d bytes", maxResp))
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return "", failed(ErrCrashed, "POST %s answered %s", where, resp.Status)
	}
	return string(body), nil
}
