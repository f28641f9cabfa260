package html

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

type prefixPage struct {
	base
	Prefix  string
	Matches []store.Resolution
	More    bool
}

// prefix answers /protocols/{hex prefix}: the short hashes listings show.
// One match redirects to its page (302: a later document may share the
// prefix); several are listed; none is a 404.
func (p *Pages) prefix(c echo.Context, prefix store.HashPrefix) error {
	m, err := p.svc.ByPrefix(c.Request().Context(), prefix)
	if err != nil {
		return err
	}
	switch len(m.Matches) {
	case 0:
		return p.RenderError(c, http.StatusNotFound, store.ErrNotFound.Code,
			fmt.Sprintf("No protocol's hash starts with %s.", prefix))
	case 1:
		return c.Redirect(http.StatusFound, "/protocols/"+m.Matches[0].Digest.Hex())
	}
	page := prefixPage{base: base{Title: "Protocols whose hash starts with " + prefix.String()},
		Prefix: prefix.String(), Matches: m.Matches, More: m.More}
	c.Response().Header().Set("Cache-Control", "no-store")
	return p.render(c, http.StatusMultipleChoices, "prefix", page)
}

// maxPasted bounds the search text read as a pasted hash: a Base64 hash
// with every character percent-escaped.
const maxPasted = 3 * 28

// pastedHash reads a search box's text as a hash when it is one: either
// spelling, either case, percent-escaped or not, or a hex prefix of at
// least store.MinHashPrefix digits that names stored documents (a prefix
// must hold a digit, so a word such as "defaced" stays a search). It
// returns where to go.
func (p *Pages) pastedHash(c echo.Context, text string) (string, bool) {
	text = strings.TrimSpace(text)
	if len(text) < store.MinHashPrefix || len(text) > maxPasted {
		return "", false
	}
	if strings.Contains(text, "%") {
		if u, err := url.PathUnescape(text); err == nil {
			text = u
		}
	}
	if d, err := protocol.ParseDigest(text); err == nil {
		return "/protocols/" + d.Hex(), true
	}
	prefix, err := store.ParseHashPrefix(text)
	if err != nil || !strings.ContainsAny(text, "0123456789") {
		return "", false
	}
	if m, err := p.svc.ByPrefix(c.Request().Context(), prefix); err != nil || len(m.Matches) == 0 {
		return "", false
	}
	return "/protocols/" + prefix.String(), true
}
