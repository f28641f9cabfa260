// Package html is the registry's browser interface: server-rendered pages
// for browsing, searching, reading and publishing protocol documents. It
// implements api.Pages; the API server mounts it and sends HTML-wanting
// clients' errors through RenderError.
package html

import (
	"context"
	"crypto/rand"
	"errors"
	"log/slog"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/auth"
	"github.com/agora-registry/registry/internal/directory"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/render"
	"github.com/agora-registry/registry/web"
)

// Options configure the pages.
type Options struct {
	// CSRFSecret keys the anti-forgery tokens of forms. Replicas behind one
	// load balancer must share it; empty means a random per-process secret.
	CSRFSecret []byte
	// OpenPublish lets anyone publish without a token (a private network).
	OpenPublish bool
	// Authenticate checks an API token typed into the publish form; nil
	// means the service's own token check.
	Authenticate func(ctx context.Context, secret string) (entity.Token, error)
	// SecureCookies marks cookies Secure (set it when served over HTTPS).
	SecureCookies bool
	// Logger receives render failures; nil means slog.Default().
	Logger *slog.Logger
	// PublishLimit, when set, guards the publish form like the API's
	// publish route, so the form is no way around the publish rate limit.
	PublishLimit echo.MiddlewareFunc
	// Documents renders Markdown for the pages; nil means a default one
	// (render.DefaultSlots concurrent renderings, render.DefaultCacheBytes).
	Documents *render.Documents
	// Directory, when set, serves /agents and the protocol page's agents.
	Directory *directory.Directory
	// Auth, when set, signs users in with the identity provider (/login,
	// /account) and lets the publish form act on the session.
	Auth *auth.OIDC
}

// Pages serves the HTML interface.
type Pages struct {
	svc       *registry.Service
	opts      Options
	log       *slog.Logger
	documents *render.Documents
	previews  *previewSlots
	templates *templates
	assets    *assets
	csrf      *csrf
	api       apiPage
}

// New loads the templates and assets and returns the pages.
func New(svc *registry.Service, opts Options) (*Pages, error) {
	if svc == nil {
		return nil, errors.New("html: a registry service is required")
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Documents == nil {
		opts.Documents = render.NewDocuments(render.DocumentsOptions{})
	}
	if opts.Authenticate == nil {
		opts.Authenticate = svc.Authenticate
	}
	if len(opts.CSRFSecret) == 0 {
		opts.CSRFSecret = make([]byte, 32)
		if _, err := rand.Read(opts.CSRFSecret); err != nil {
			return nil, err
		}
	}
	a, err := loadAssets(web.Static())
	if err != nil {
		return nil, err
	}
	t, err := loadTemplates(web.Templates(), a, opts.Auth != nil)
	if err != nil {
		return nil, err
	}
	api, err := buildAPIPage()
	if err != nil {
		return nil, err
	}
	return &Pages{
		svc: svc, opts: opts, log: opts.Logger,
		documents: opts.Documents,
		previews:  newPreviewSlots(),
		templates: t,
		assets:    a,
		csrf:      newCSRF(opts.CSRFSecret, opts.SecureCookies),
		api:       api,
	}, nil
}

// Register adds the HTML routes. GET / is the API server's, which calls
// Home for browsers. heavy bounds concurrent searches; the browse page takes
// it so searching through HTML is no way around the API's bound.
func (p *Pages) Register(e *echo.Echo, heavy echo.MiddlewareFunc) {
	browse := []echo.MiddlewareFunc{securityHeaders}
	if heavy != nil {
		browse = append(browse, heavy)
	}
	e.GET("/protocols", p.browse, browse...)
	e.GET("/protocols/*", p.protocol, securityHeaders)
	e.GET("/publish", p.publishForm, securityHeaders)
	publishMiddleware := []echo.MiddlewareFunc{securityHeaders}
	if p.opts.PublishLimit != nil {
		publishMiddleware = append(publishMiddleware, p.opts.PublishLimit)
	}
	e.POST("/publish", p.publish, publishMiddleware...)
	e.GET("/tags", p.tags, securityHeaders)
	e.GET("/publishers/:name", p.publisher, browse...) // ?latest=true walks like a search
	e.GET("/agents", p.agents, browse...)
	e.GET("/agents/:id", p.agent, securityHeaders)
	e.GET("/api", p.apiReference, securityHeaders)
	e.GET("/log", p.logPage, securityHeaders)
	e.GET("/feed.atom", p.feed, browse...)
	e.GET("/static/*", p.static)
	p.registerAccount(e)
}
