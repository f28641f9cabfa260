// Registry is the one Go client of the registry's HTTP API, used by
// the CLI, the agent's resolver and the pull-through mirror. The caller
// supplies the *http.Client (the agent and mirror their guarded ones), so
// timeouts, redirects and address policy stay the caller's choice; every
// answer is read through a size cap and documents are verified against
// their hash before they are returned.

package agora

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// DefaultRegistryMaxBytes caps an answer when Client.MaxBytes is 0: a batch resolve
// of hundreds of hashes with a few sources each fits easily.
const DefaultRegistryMaxBytes = 4 << 20

// maxProblemBytes caps an error answer: a problem document is a few lines.
const maxProblemBytes = 64 << 10

// Errors of the client's own, with stable codes.
var (
	ErrRegistryUnreachable = newError(KindUnavailable, "registry_unreachable", "the registry could not be reached")
	ErrRegistryBadAnswer   = newError(KindUnavailable, "registry_bad_answer", "the registry's answer is not the expected JSON")
	ErrRegistryTooLarge    = newError(KindTooLarge, "registry_answer_too_large", "the registry's answer exceeds the size limit")
	ErrRegistryURL         = newError(KindInvalid, "bad_registry_url", "the registry URL is not an http(s) base URL without query or fragment")
)

// Registry is a client of one registry.
type Registry struct {
	base   string // without trailing slash; may hold credentials
	origin string // base without credentials, safe to log and record
	http   *http.Client
	// Token, when set, is sent as a bearer token (a private registry's
	// read token, a publisher's token); never to another origin, even on a
	// redirect.
	Token string
	// MaxBytes caps every answer body; 0 = DefaultRegistryMaxBytes.
	MaxBytes int
	// MaxDocumentBytes caps a fetched document instead, when set.
	MaxDocumentBytes int
	// UserAgent, when set, names the caller to the registry.
	UserAgent string
}

// NewRegistry checks base (an http(s) URL without query or fragment) and
// returns a client sending its requests through hc.
func NewRegistry(base string, hc *http.Client) (*Registry, error) {
	u, err := parseRegistryBase(base)
	if err != nil {
		return nil, err
	}
	if hc == nil {
		return nil, errors.New("client: no http.Client given")
	}
	c := &Registry{base: strings.TrimRight(u.String(), "/"), http: sameOriginAuth(hc)}
	u.User = nil
	c.origin = strings.TrimRight(u.String(), "/")
	return c, nil
}

// parseRegistryBase reads a registry's base URL as NewRegistry takes it.
func parseRegistryBase(base string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		return nil, ErrRegistryURL.With(fmt.Sprintf("%q is not an http(s) base URL without query or fragment", base))
	}
	return u, nil
}

// Origin is the base URL without credentials.
func (c *Registry) Origin() string { return c.origin }

// RawURL is the stable raw URL of a document at the registry at base.
func RawURL(base string, d Digest) string {
	return strings.TrimRight(base, "/") + "/protocol/" + d.Hex()
}

// RawURL is this registry's raw URL of a document.
func (c *Registry) RawURL(d Digest) string { return RawURL(c.origin, d) }

// request builds a request to path (which starts with "/").
func (c *Registry) request(ctx context.Context, method, path string, body []byte, contentType, accept string) (*http.Request, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, r)
	if err != nil {
		return nil, ErrRegistryURL.With("cannot build a request: " + err.Error())
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", accept)
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	if c.UserAgent != "" {
		req.Header.Set("User-Agent", c.UserAgent)
	}
	return req, nil
}

// do sends req and returns the status and the body of a 2xx answer, read
// up to limit bytes; any other answer becomes an *RegistryError.
func (c *Registry) do(req *http.Request, limit int) (int, []byte, error) {
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, registryUnreachable(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, nil, readProblem(resp)
	}
	if resp.ContentLength > int64(limit) {
		return resp.StatusCode, nil, ErrRegistryTooLarge.With(fmt.Sprintf("the registry announced %d bytes; the limit is %d", resp.ContentLength, limit))
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, int64(limit)+1))
	if err != nil {
		return resp.StatusCode, nil, registryUnreachable(fmt.Errorf("reading the answer: %w", err))
	}
	if len(body) > limit {
		return resp.StatusCode, nil, ErrRegistryTooLarge.With(fmt.Sprintf("the registry sent more than %d bytes", limit))
	}
	return resp.StatusCode, body, nil
}

// unreachable classifies a transport failure, keeping a classified cause
// (the agent's SSRF guard refusing an address) as the error callers see.
// The message names no address: the agent relays it to strangers; the
// cause, for logs, has the details.
func registryUnreachable(err error) error {
	if e := asError(err); e != nil {
		return e
	}
	return wrapError(ErrRegistryUnreachable.Kind, ErrRegistryUnreachable.Code, ErrRegistryUnreachable.Message, err)
}

// doJSON sends req and decodes a 2xx answer into out.
func (c *Registry) doJSON(req *http.Request, out any) (int, error) {
	status, body, err := c.do(req, firstPositive(c.MaxBytes, DefaultRegistryMaxBytes))
	if err != nil {
		return status, err
	}
	if err := json.Unmarshal(body, out); err != nil {
		return status, wrapError(ErrRegistryBadAnswer.Kind, ErrRegistryBadAnswer.Code, ErrRegistryBadAnswer.Message, err)
	}
	return status, nil
}

func firstPositive(caps ...int) int {
	for _, n := range caps {
		if n > 0 {
			return n
		}
	}
	return 0
}
