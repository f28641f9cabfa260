package api

import (
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/registry"
)

// Auth errors; 401s get a WWW-Authenticate challenge from the error handler.
var (
	errMissingToken      = apperr.New(apperr.Unauthenticated, "missing_token", "this needs an API token: send Authorization: Bearer <token>")
	errMalformedAuth     = apperr.New(apperr.Unauthenticated, "invalid_token", "the Authorization header must be: Bearer <token>")
	errInsufficientScope = apperr.New(apperr.Forbidden, "insufficient_scope", "the API token lacks the scope this needs")
)

// Authenticator checks API tokens. Reads never need one; publishing needs
// the publish scope unless open publishing is on; withdrawing needs admin.
type Authenticator struct {
	svc         *registry.Service
	openPublish bool
}

// NewAuthenticator returns an authenticator; openPublish lets anyone
// publish (a private network), never withdraw.
func NewAuthenticator(svc *registry.Service, openPublish bool) *Authenticator {
	return &Authenticator{svc: svc, openPublish: openPublish}
}

// Require checks that the request may act with scope. It returns the
// token, or the zero token when open publishing admitted a tokenless
// request. A token that is sent is always checked, even when publishing
// is open, so a revoked token never silently works.
func (a *Authenticator) Require(c echo.Context, scope entity.Scope) (entity.Token, error) {
	header := c.Request().Header.Get(echo.HeaderAuthorization)
	if header == "" {
		if a.openPublish && scope == entity.ScopePublish {
			return entity.Token{}, nil
		}
		return entity.Token{}, errMissingToken
	}
	scheme, secret, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(secret) == "" {
		return entity.Token{}, errMalformedAuth
	}
	tok, err := a.svc.Authenticate(c.Request().Context(), strings.TrimSpace(secret))
	if err != nil {
		return entity.Token{}, err
	}
	if !tok.Has(scope) {
		return entity.Token{}, errInsufficientScope.With("the API token lacks the " + string(scope) + " scope")
	}
	return tok, nil
}

// Middleware requires scope on the routes it wraps and keeps the token for
// the handler (Publisher).
func (a *Authenticator) Middleware(scope entity.Scope) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			tok, err := a.Require(c, scope)
			if err != nil {
				return err
			}
			c.Set(tokenKey, tok)
			return next(c)
		}
	}
}

// tokenKey holds the request's store.Token in the echo context.
const tokenKey = "agora.token"

// Publisher is the publisher the request's token publishes as
// (registry.AnonymousPublisher for a tokenless publish on an open registry).
func Publisher(c echo.Context) string {
	tok, _ := c.Get(tokenKey).(entity.Token)
	return registry.PublisherOfToken(tok)
}

func (s *Server) requireScope(scope entity.Scope) echo.MiddlewareFunc {
	return s.auth.Middleware(scope)
}
