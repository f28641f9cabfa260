package html

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// redirectToBrowse sends /protocols/ (no hash) to the listing it was meant
// to reach, keeping the query; the target path is fixed, so this cannot be
// turned into an open redirect.
func redirectToBrowse(c echo.Context) error {
	target := "/protocols"
	if q := c.Request().URL.RawQuery; q != "" {
		target += "?" + q
	}
	return c.Redirect(http.StatusMovedPermanently, target)
}
