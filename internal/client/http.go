package client

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/agora-registry/registry/agora"
)

// NewHTTP is an *http.Client for registries the operator or user named
// (the CLI's --server, the mirror's upstreams): explicit timeouts
// everywhere, a redirect cap (<0 forbids redirects), the environment's
// proxy, and no address guard. Strangers' URLs go through the agent's
// safehttp client instead.
func NewHTTP(timeout time.Duration, maxRedirects int) *http.Client {
	dialer := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	transport := &http.Transport{
		Proxy:                  http.ProxyFromEnvironment,
		DialContext:            dialer.DialContext,
		TLSHandshakeTimeout:    5 * time.Second,
		ResponseHeaderTimeout:  timeout,
		ExpectContinueTimeout:  time.Second,
		MaxIdleConnsPerHost:    4,
		IdleConnTimeout:        90 * time.Second,
		MaxResponseHeaderBytes: 64 << 10,
	}
	return &http.Client{
		Transport: transport,
		Timeout:   timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if maxRedirects < 0 || len(via) > maxRedirects {
				return fmt.Errorf("more than %d redirects", max(maxRedirects, 0))
			}
			return nil
		},
	}
}

// NewUpstreamHTTP is the mirror's *http.Client: the agent's SSRF guard
// (safehttp) with the upstreams' own host:port and allow let through. The
// operator chose the upstreams, and they may sit on a private network; any
// other address an upstream redirects to is checked at dial time like a URL
// a stranger sent. The guard needs the proxy off, so HTTP_PROXY is not used.
func NewUpstreamHTTP(bases, allow []string, timeout time.Duration, maxRedirects int) (*http.Client, error) {
	trusted := slices.Clone(allow)
	for _, b := range bases {
		u, err := url.Parse(strings.TrimSpace(b))
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("upstream %q is not an http(s) base URL", b)
		}
		port := u.Port()
		if port == "" {
			port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
		}
		trusted = append(trusted, net.JoinHostPort(u.Hostname(), port))
	}
	return agora.NewHTTPClient(agora.FetchPolicy{Allow: trusted, MaxRedirects: maxRedirects, Timeout: timeout})
}
