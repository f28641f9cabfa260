package client

import (
	"fmt"
	"net"
	"net/http"
	"time"
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
