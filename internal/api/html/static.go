package html

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"

	"github.com/labstack/echo/v4"
)

// asset is one embedded static file with its content fingerprint.
type asset struct {
	body        []byte
	contentType string
	version     string // first 12 hex digits of the SHA-256 of body
}

// assets are the embedded static files, read once at start-up.
type assets struct {
	files map[string]asset
}

func loadAssets(fsys fs.FS) (*assets, error) {
	a := &assets{files: map[string]asset{}}
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(body)
		ct := mime.TypeByExtension(path.Ext(name))
		if ct == "" {
			ct = "application/octet-stream"
		}
		a.files[name] = asset{body: body, contentType: ct, version: hex.EncodeToString(sum[:6])}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("html: reading static assets: %w", err)
	}
	return a, nil
}

// url is the versioned URL of an asset for templates. The version in the
// query lets the file be cached forever: a new build changes the URL.
func (a *assets) url(name string) (string, error) {
	f, ok := a.files[name]
	if !ok {
		return "", fmt.Errorf("html: no static asset %q", name)
	}
	return "/static/" + name + "?v=" + f.version, nil
}

// static serves GET /static/*. Only a request carrying the current version
// is cached as immutable; an old or missing version gets a short lifetime,
// so a stale page never pins a new file under an old URL for a year.
func (p *Pages) static(c echo.Context) error {
	name := strings.TrimPrefix(c.Param("*"), "/")
	f, ok := p.assets.files[name]
	if !ok {
		return echo.NewHTTPError(http.StatusNotFound)
	}
	h := c.Response().Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("ETag", `"`+f.version+`"`)
	if c.QueryParam("v") == f.version {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "public, max-age=300")
	}
	if match := c.Request().Header.Get("If-None-Match"); match == `"`+f.version+`"` {
		return c.NoContent(http.StatusNotModified)
	}
	return c.Blob(http.StatusOK, f.contentType, f.body)
}
