package html

import (
	"bytes"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"time"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/plural"
	"github.com/agora-registry/registry/internal/store"
	"github.com/labstack/echo/v4"
)

// pageNames are the page templates; each is parsed together with
// layout.html, which defines the frame every page shares.
var pageNames = []string{"home", "browse", "protocol", "publish", "tags", "error", "prefix", "withdrawn", "publisher", "agents", "agent", "apiref", "log", "account"}

// partials are templates any page may use (partial_*.html): pieces of a
// page kept in their own files.
const partials = "partial_*.html"

// maxRenderedPage caps the buffer of one rendered page; documents are at
// most a few MiB, so anything beyond this is a bug, not a big page.
const maxRenderedPage = 16 << 20

type templates struct {
	pages map[string]*template.Template
}

func loadTemplates(fsys fs.FS, a *assets, signIn bool) (*templates, error) {
	funcs := template.FuncMap{
		"signIn":    func() bool { return signIn },
		"static":    a.url,
		"tagURL":    tagURL,
		"shortHash": func(hex string) string { return hex[:min(12, len(hex))] },
		"date":      func(t time.Time) string { return t.UTC().Format("2 Jan 2006") },
		"isoTime":   func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
		"size":      humanSize,
		"add":       func(a, b int) int { return a + b },
		"plural":    plural.Count[int],
		"minPrefix": func() int { return store.MinHashPrefix },
		"dialectName": func(d string) string {
			return map[string]string{entity.DialectAgora: "Agora", entity.DialectA2A: "A2A", entity.DialectARD: "ARD"}[d]
		},
	}
	t := &templates{pages: map[string]*template.Template{}}
	for _, name := range pageNames {
		tpl, err := template.New(name).Funcs(funcs).ParseFS(fsys, "layout.html", partials, name+".html")
		if err != nil {
			return nil, fmt.Errorf("html: parsing template %s: %w", name, err)
		}
		t.pages[name] = tpl
	}
	return t, nil
}

func humanSize(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// base is what the layout needs from every page.
type base struct {
	Title string // the <title> and heading; "" for the home page
	Nav   string // which navigation entry is current
	Query string // pre-fills the header's search box
	Meta  *pageMeta
}

// pageMeta is a page's description for search engines and link previews
// (meta description, OpenGraph).
type pageMeta struct {
	Description string
	URL         string // the page's absolute address
	NoIndex     bool   // a page search engines should not list
}

// render writes a page. It renders into a buffer first, so a template
// failure becomes a clean error page instead of half a page.
func (p *Pages) render(c echo.Context, status int, name string, data any) error {
	tpl, ok := p.templates.pages[name]
	if !ok {
		return fmt.Errorf("html: no page template %q", name)
	}
	var buf bytes.Buffer
	if err := tpl.ExecuteTemplate(&buf, "layout", data); err != nil {
		return fmt.Errorf("html: rendering %s: %w", name, err)
	}
	if buf.Len() > maxRenderedPage {
		return fmt.Errorf("html: page %s rendered to %d bytes", name, buf.Len())
	}
	setSecurityHeaders(c)
	h := c.Response().Header()
	if h.Get("Cache-Control") == "" {
		h.Set("Cache-Control", "no-cache")
	}
	if c.Request().Method == http.MethodHead {
		return c.NoContent(status)
	}
	return c.HTMLBlob(status, buf.Bytes())
}
