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
		return "", ErrCrashed.With("the http routine's URL is malformed")
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
	resp, err := client.Do(r)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return "", ErrTimeout.With(fmt.Sprintf("the http routine at %s did not answer within %s", h.URL, timeout))
		}
		return "", ErrCrashed.With(fmt.Sprintf("the http routine at %s failed: %v", h.URL, err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, int64(maxResp)+1))
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return "", ErrTimeout.With(fmt.Sprintf("the http routine at %s did not answer within %s", h.URL, timeout))
		}
		return "", ErrCrashed.With(fmt.Sprintf("reading the http routine's answer failed: %v", err))
	}
	if len(body) > maxResp {
		return "", ErrTooLarge.With(fmt.Sprintf("the http routine at %s answered more than %d bytes", h.URL, maxResp))
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return "", ErrCrashed.With(fmt.Sprintf("the http routine at %s answered %s", h.URL, resp.Status))
	}
	return string(body), nil
}
