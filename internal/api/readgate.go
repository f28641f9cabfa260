package api

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/auth"
	"github.com/agora-registry/registry/internal/entity"
)

// Sessions tells who is signed in (internal/auth).
type Sessions interface {
	User(r *http.Request) (auth.User, bool, error)
}

// WithReadGate turns private mode on or off: every read then needs a
// signed-in session (when sessions is set) or an API token with the read
// scope. Health checks and the sign-in itself stay open.
func WithReadGate(private bool, sessions *auth.OIDC) Option {
	return func(s *Server) {
		s.private = private
		if sessions != nil {
			s.sessions = sessions
		}
	}
}

var errPrivate = apperr.New(apperr.Unauthenticated, "missing_token",
	"this registry is private: send Authorization: Bearer <token> with a token of the read scope, or sign in")

// openInPrivate are the paths a private registry answers to anyone: the
// probes, the sign-in and the stylesheet its pages need.
func openInPrivate(p string) bool {
	switch p {
	case "/healthz", "/readyz", "/login", auth.CallbackPath, "/logout":
		return true
	}
	return strings.HasPrefix(p, "/static/")
}

// gateRead lets a request through a private registry: a live session, or a
// valid token with the read scope. A page asked for by a browser is sent
// to sign in instead of an error.
func (s *Server) gateRead(c echo.Context) error {
	r := c.Request()
	if !s.private || openInPrivate(r.URL.Path) {
		return nil
	}
	if r.Header.Get(echo.HeaderAuthorization) != "" {
		_, err := s.auth.Require(c, entity.ScopeRead)
		return err
	}
	if s.sessions != nil {
		if _, ok, err := s.sessions.User(r); err != nil {
			return err
		} else if ok {
			return nil
		}
		if r.Method == http.MethodGet && s.pages != nil && WantsHTML(r) && !isMachinePath(r.URL.Path) {
			return c.Redirect(http.StatusSeeOther, "/login?next="+url.QueryEscape(r.URL.RequestURI()))
		}
	}
	return errPrivate
}
