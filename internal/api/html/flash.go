package html

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// The "Published." banner is a flash: the publish POST sets a short-lived
// cookie scoped to the new protocol's page, and that page shows the banner
// once and clears it. A link with a query parameter could show it to
// anyone; the cookie shows it only to the browser that published.
const (
	publishedCookie = "registry_published"
	flashSeconds    = 60
)

// setPublishedFlash remembers, for this browser's next view of the page at
// path, whether the publish created the document ("new") or found it
// ("existing").
func (p *Pages) setPublishedFlash(c echo.Context, path, state string) {
	c.SetCookie(&http.Cookie{
		Name: publishedCookie, Value: state, Path: path, MaxAge: flashSeconds,
		HttpOnly: true, Secure: p.opts.SecureCookies, SameSite: http.SameSiteStrictMode,
	})
}

// takePublishedFlash returns the flash set for path and clears it; "" when
// there is none. The browser sends the cookie only to that path.
func (p *Pages) takePublishedFlash(c echo.Context, path string) string {
	ck, err := c.Cookie(publishedCookie)
	if err != nil || (ck.Value != "new" && ck.Value != "existing") {
		return ""
	}
	c.SetCookie(&http.Cookie{
		Name: publishedCookie, Path: path, MaxAge: -1,
		HttpOnly: true, Secure: p.opts.SecureCookies, SameSite: http.SameSiteStrictMode,
	})
	// A page carrying this browser's banner must not be stored for others.
	c.Response().Header().Set("Cache-Control", "no-store")
	return ck.Value
}
