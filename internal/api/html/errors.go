package html

import (
	"github.com/agora-registry/registry/internal/auth"

	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/protocol"
)

// routeNotFound is the API's code for a path no route matches; its message
// ("no such endpoint") speaks to API clients, not to people.
const routeNotFound = "route_not_found"

type errorPage struct {
	base
	Status  int
	Code    string
	Message string
	Hint    string
}

// RenderError renders the HTML error page the API's error handler asks
// for. message is already safe to show (classified by the API).
func (p *Pages) RenderError(c echo.Context, status int, code, message string) error {
	page := errorPage{base: base{Title: http.StatusText(status)}, Status: status, Code: code, Message: message}
	switch status {
	case http.StatusNotFound:
		page.Title = "Not found"
		if code == routeNotFound {
			page.Message = "There is no page at this address."
		}
		page.Hint = "The link may be mistyped, or the protocol was never published here. Search for it by its title or a word from its description."
	case http.StatusGone:
		page.Title = "Protocol withdrawn"
		page.Hint = "It is no longer listed or served. A newer version may exist: search for it."
	case http.StatusBadRequest:
		// Say the hash rule once: most malformed-hash messages state it.
		if code == protocol.ErrMalformedDigest.Code && !strings.Contains(message, protocol.ErrMalformedDigest.Message) {
			page.Hint = "A protocol hash is 40 hexadecimal characters or 28 Base64 characters ending in '='."
		}
	case http.StatusServiceUnavailable:
		if code == auth.ErrProviderDown.Code {
			break
		}
		page.Hint = "The registry cannot reach its database right now. Try again in a few seconds."
	}
	if page.Title == "" {
		page.Title = "Error"
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return p.render(c, status, "error", page)
}
