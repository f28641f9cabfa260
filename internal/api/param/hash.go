// Package param reads protocol hashes from a request's path and query, for
// both the JSON API and the HTML pages.
package param

import (
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/protocol"
)

// PathHash reads the hash from a route's trailing wildcard ("/…/*"),
// unescaped exactly once. echo routes on the raw path when the request has
// one (a Base64 '/' sent as %2F arrives escaped and is unescaped here), and
// on the already unescaped path when it has none (RawPath is empty when the
// escaping is the default one, e.g. for %252F): that wildcard is taken as
// it is, so %252F stays %2F and is refused. An unescaped '/' is simply part
// of the wildcard; '+' stays '+' (path unescaping, not query unescaping).
func PathHash(c echo.Context) (protocol.Digest, error) {
	return wildcardHash(c, c.Param("*"))
}

// PathHashSub reads "HASH" or "HASH/SUB" from a route's trailing wildcard,
// SUB being one of subs (a sub-resource: /protocols/{hash}/versions). A
// Base64 hash ends in '=', so no hash is mistaken for one ending in /SUB.
func PathHashSub(c echo.Context, subs ...string) (d protocol.Digest, sub string, err error) {
	raw := c.Param("*")
	for _, s := range subs {
		if rest, ok := strings.CutSuffix(raw, "/"+s); ok {
			raw, sub = rest, s
			break
		}
	}
	d, err = wildcardHash(c, raw)
	return d, sub, err
}

// PathHashExt reads "HASH" + ext (".tlog-proof") from a route's trailing
// wildcard; ok reports whether the wildcard ends in ext (no hash spelling
// holds a '.').
func PathHashExt(c echo.Context, ext string) (d protocol.Digest, ok bool, err error) {
	raw, ok := strings.CutSuffix(c.Param("*"), ext)
	if !ok {
		return protocol.Digest{}, false, nil
	}
	d, err = wildcardHash(c, raw)
	return d, true, err
}

func wildcardHash(c echo.Context, raw string) (protocol.Digest, error) {
	if c.Request().URL.RawPath == "" {
		return protocol.ParseDigest(raw)
	}
	s, err := url.PathUnescape(raw)
	if err != nil {
		return protocol.Digest{}, protocol.ErrMalformedDigest.With("malformed hash: bad percent-escape in the path")
	}
	return protocol.ParseDigest(s)
}

// QueryHash reads the hash from the "id" query parameter, where a '+' may
// have become a space (ParseDigest reads a space as '+').
func QueryHash(c echo.Context) (protocol.Digest, error) {
	return protocol.ParseDigest(c.QueryParam("id"))
}
