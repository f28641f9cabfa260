package html

import "github.com/labstack/echo/v4"

// contentSecurityPolicy admits only this site's own script, styles and
// images: no inline script or style, no plugins, no framing, and forms may
// only post back here. A rendered document can therefore not run code even
// if something slipped past the sanitiser.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// setSecurityHeaders marks a response as an HTML page of this site.
func setSecurityHeaders(c echo.Context) {
	h := c.Response().Header()
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
}

// securityHeaders sets the headers before the handler runs, so error pages
// rendered later for the same request carry them too.
func securityHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		setSecurityHeaders(c)
		return next(c)
	}
}
