package agora

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
)

// sameOriginAuth returns a copy of hc that drops the Authorization header
// when a redirect leaves the first request's origin (scheme, host and
// port): a registry's token is never sent to another host, whatever the
// registry redirects to. Go's own rule keeps it for subdomains and other
// ports.
func sameOriginAuth(hc *http.Client) *http.Client {
	c := *hc
	next := hc.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) > 0 && !sameOrigin(req.URL, via[0].URL) {
			req.Header.Del("Authorization")
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &c
}

// sameOrigin compares scheme, host and port (the scheme's default port
// made explicit).
func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(hostPort(a), hostPort(b))
}
