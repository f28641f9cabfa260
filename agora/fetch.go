// The guarded fetcher fetches URLs chosen by strangers. Every connection is
// checked at dial time, after DNS resolution and on every redirect, against
// the IANA special-purpose address registries (loopback, private, link-local,
// CGNAT, cloud metadata, ...) by code.dny.dev/ssrf; an operator allow-list of
// hosts and CIDR prefixes opens it for private deployments and tests.

package agora

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"code.dny.dev/ssrf"
)

// Defaults for FetchPolicy left at zero.
const (
	DefaultMaxRedirects = 3
	DefaultFetchTimeout = 10 * time.Second
	defaultFetchBytes   = 1 << 20
)

// Errors, with stable codes.
var (
	ErrFetchBlocked  = newError(KindForbidden, "fetch_blocked", "the address is not allowed")
	ErrFetchScheme   = newError(KindInvalid, "fetch_scheme", "only http and https URLs are fetched")
	ErrFetchTooLarge = newError(KindTooLarge, "fetch_too_large", "the response is too large")
	ErrFetchStatus   = newError(KindUnavailable, "fetch_status", "the server did not answer 200 OK")
	ErrFetchFailed   = newError(KindUnavailable, "fetch_failed", "the fetch failed")
)

// FetchPolicy configure a Client.
type FetchPolicy struct {
	// Allow lists what bypasses the address guard: CIDR prefixes
	// ("10.0.0.0/8", "127.0.0.1/32"), bare IPs, host names ("registry.lan",
	// any port) or host:port pairs ("127.0.0.1:8080", that port only).
	Allow        []string
	MaxRedirects int           // 0 means DefaultMaxRedirects; negative forbids redirects
	Timeout      time.Duration // total time of one fetch, redirects included
	// Resolver looks up host names (nil: the system resolver). The guard
	// vets the addresses it returns, so tests can point names anywhere.
	Resolver *net.Resolver
}

// Fetcher gets URLs chosen by strangers through the SSRF guard: redirects
// guarded, answers size-capped, fetches time-capped.
type Fetcher struct {
	HTTP *http.Client
}

// NewFetcher builds a guarded fetcher. It fails on a malformed allow-list entry.
func NewFetcher(o FetchPolicy) (*Fetcher, error) {
	if o.MaxRedirects == 0 {
		o.MaxRedirects = DefaultMaxRedirects
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultFetchTimeout
	}
	al, err := parseAllow(o.Allow)
	if err != nil {
		return nil, err
	}
	guardian := ssrf.New(ssrf.WithAnyPort(),
		ssrf.WithAllowedV4Prefixes(al.v4...), ssrf.WithAllowedV6Prefixes(al.v6...))
	guarded := &net.Dialer{Timeout: o.Timeout, Control: guardian.Safe, Resolver: o.Resolver}
	trusted := &net.Dialer{Timeout: o.Timeout, Resolver: o.Resolver}
	transport := &http.Transport{
		// Proxy must stay nil: with a proxy the guard would vet the proxy's
		// address instead of the target's.
		Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if al.trustsHost(addr) {
				return trusted.DialContext(ctx, network, addr)
			}
			conn, err := guarded.DialContext(ctx, network, addr)
			if err != nil && errors.Is(err, ssrf.ErrProhibitedIP) {
				return nil, ErrFetchBlocked.With(fmt.Sprintf("refusing to connect to %s: private, loopback or reserved address (allow-list it in the agent config to permit)", addr))
			}
			return conn, err
		},
		TLSHandshakeTimeout:   o.Timeout,
		ResponseHeaderTimeout: o.Timeout,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       30 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	maxRedirects := o.MaxRedirects
	client := &http.Client{
		Transport: guardedTransport{transport},
		Timeout:   o.Timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if maxRedirects < 0 || len(via) > maxRedirects {
				return fmt.Errorf("stopped after %d redirects", len(via))
			}
			if err := checkScheme(req.URL.Scheme); err != nil {
				return err
			}
			return checkHost(req.URL.Hostname())
		},
	}
	return &Fetcher{HTTP: sameOriginAuth(client)}, nil
}

// guardedTransport vets every request it sends, the first and each
// redirect, so fetcher.HTTP is guarded on its own when other code (the
// registry API client) sends through it.
type guardedTransport struct{ next http.RoundTripper }

func (g guardedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	err := checkScheme(req.URL.Scheme)
	if err == nil {
		err = checkHost(req.URL.Hostname())
	}
	if err != nil {
		if req.Body != nil {
			req.Body.Close() // RoundTrip owns the body, even on failure
		}
		return nil, err
	}
	resp, err := g.next.RoundTrip(req)
	if err != nil {
		return nil, classify(err) // words fit for a stranger, whoever sent the request
	}
	return resp, nil
}

func checkScheme(s string) error {
	if s != "http" && s != "https" {
		return ErrFetchScheme.With(fmt.Sprintf("refusing the %q scheme: only http and https URLs are fetched", s))
	}
	return nil
}

// Get fetches rawURL and returns its body if the answer is 200 OK and at
// most maxBytes long.
func (c *Fetcher) Get(ctx context.Context, rawURL string, maxBytes int) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, ErrFetchScheme.With("malformed URL")
	}
	req.Header.Set("Accept", "text/plain, text/markdown, */*;q=0.5")
	return c.Do(req, maxBytes)
}

// Do sends req (http or https only) and reads a 2xx answer of at most
// maxBytes.
func (c *Fetcher) Do(req *http.Request, maxBytes int) ([]byte, error) {
	if err := checkScheme(req.URL.Scheme); err != nil {
		return nil, err
	}
	if err := checkHost(req.URL.Hostname()); err != nil {
		return nil, err
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, classify(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, ErrFetchStatus.With(fmt.Sprintf("the server answered %s", statusLine(resp)))
	}
	return readLimited(resp.Body, maxBytes)
}

// statusLine is resp's status code with Go's text for it, never the
// reason phrase the server wrote: that is a stranger's bytes (escape
// sequences included) and ends up in errors printed to terminals.
func statusLine(resp *http.Response) string {
	return fmt.Sprintf("%d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
}

// readLimited reads all of r, refusing more than maxBytes (one extra byte is
// read to tell "exactly the limit" from "over it").
func readLimited(r io.Reader, maxBytes int) ([]byte, error) {
	if maxBytes <= 0 {
		maxBytes = defaultFetchBytes
	}
	b, err := io.ReadAll(io.LimitReader(r, int64(maxBytes)+1))
	if err != nil {
		return nil, wrapError(ErrFetchFailed.Kind, ErrFetchFailed.Code, "reading the answer failed: "+failureText(err), err)
	}
	if len(b) > maxBytes {
		return nil, ErrFetchTooLarge.With(fmt.Sprintf("the answer exceeds the limit of %d bytes", maxBytes))
	}
	return b, nil
}

// classify turns transport errors into classified ones, keeping our own.
// The message says what kind of failure it was; the raw error stays in the
// cause, for the agent's log only.
func classify(err error) error {
	if e := asError(err); e != nil {
		return e
	}
	return wrapError(ErrFetchFailed.Kind, ErrFetchFailed.Code, failureText(err), RedactError(err))
}

type allowList struct {
	v4, v6    []netip.Prefix
	hosts     map[string]bool // lower-case host names, any port
	hostPorts map[string]bool // exact lower-case host:port
}

func parseAllow(entries []string) (allowList, error) {
	al := allowList{hosts: map[string]bool{}, hostPorts: map[string]bool{}}
	for _, e := range entries {
		e = strings.ToLower(strings.TrimSpace(e))
		if e == "" {
			continue
		}
		if p, err := netip.ParsePrefix(e); err == nil {
			al.add(p.Masked())
			continue
		}
		if a, err := netip.ParseAddr(e); err == nil {
			al.add(netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		if host, port, err := net.SplitHostPort(e); err == nil {
			if _, perr := strconv.ParseUint(port, 10, 16); perr != nil || host == "" || strings.ContainsAny(host, "/@ ") {
				return al, newError(KindInvalid, "bad_allow_entry", fmt.Sprintf("allow-list entry %q is not a CIDR, IP, host or host:port", e))
			}
			al.hostPorts[e] = true
			continue
		}
		if strings.ContainsAny(e, "/:@ ") {
			return al, newError(KindInvalid, "bad_allow_entry", fmt.Sprintf("allow-list entry %q is not a CIDR, IP, host or host:port", e))
		}
		al.hosts[e] = true
	}
	return al, nil
}

func (al *allowList) add(p netip.Prefix) {
	if p.Addr().Is4() {
		al.v4 = append(al.v4, p)
	} else {
		al.v6 = append(al.v6, p)
	}
}

func (al allowList) trustsHost(addr string) bool {
	addr = strings.ToLower(addr)
	if al.hostPorts[addr] {
		return true
	}
	host, _, err := net.SplitHostPort(addr)
	return err == nil && al.hosts[host]
}

// NewHTTPClient is an SSRF-guarded http.Client: every connection, redirect
// included, is refused unless its address is public or allowed by p. Use
// it for any URL a stranger chose.
func NewHTTPClient(p FetchPolicy) (*http.Client, error) {
	f, err := NewFetcher(p)
	if err != nil {
		return nil, err
	}
	return f.HTTP, nil
}
