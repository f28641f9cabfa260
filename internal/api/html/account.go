package html

import (
	"errors"
	"net/http"
	"slices"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/api/problem"
	"github.com/agora-registry/registry/internal/auth"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/store"
)

// The sign-in routes and the account page; they exist only when the
// registry has an identity provider (Options.Auth).
func (p *Pages) registerAccount(e *echo.Echo) {
	if p.opts.Auth == nil {
		return
	}
	e.GET("/login", p.login, securityHeaders)
	e.GET(auth.CallbackPath, p.loginCallback, securityHeaders)
	e.POST("/logout", p.logout, securityHeaders)
	e.GET("/account", p.account, securityHeaders)
	e.POST("/account/tokens", p.createToken, securityHeaders)
	e.POST("/account/tokens/:id/revoke", p.revokeToken, securityHeaders)
}

// user is the request's signed-in user, if any.
func (p *Pages) user(c echo.Context) (auth.User, bool, error) {
	if p.opts.Auth == nil {
		return auth.User{}, false, nil
	}
	return p.opts.Auth.User(c.Request())
}

// login answers GET /login: it starts the sign-in and redirects to the
// identity provider, or explains that the provider cannot be reached.
func (p *Pages) login(c echo.Context) error {
	c.Response().Header().Set("Cache-Control", "no-store")
	to, err := p.opts.Auth.Begin(c.Response(), c.Request(), c.QueryParam("next"))
	if err != nil {
		status, code, msg := problem.Classify(err)
		return p.RenderError(c, status, code, msg)
	}
	return c.Redirect(http.StatusFound, to)
}

// loginCallback answers the identity provider's redirect.
func (p *Pages) loginCallback(c echo.Context) error {
	c.Response().Header().Set("Cache-Control", "no-store")
	_, next, err := p.opts.Auth.Finish(c.Response(), c.Request())
	if err != nil {
		status, code, msg := problem.Classify(err)
		p.log.Warn("sign-in failed", "status", status, "code", code, "error", err.Error())
		return p.RenderError(c, status, code, msg)
	}
	return c.Redirect(http.StatusSeeOther, next)
}

// logout answers POST /logout (a form with the CSRF token).
func (p *Pages) logout(c echo.Context) error {
	if !p.csrf.valid(c) {
		return p.RenderError(c, http.StatusForbidden, "csrf", "This form expired or came from another site; you are still signed in. Reload the page and try again.")
	}
	if u, ok, _ := p.user(c); ok {
		p.log.Info("signed out", "actor", u.Name())
	}
	if err := p.opts.Auth.Logout(c.Response(), c.Request()); err != nil {
		return err
	}
	// A page, not a redirect: on a private registry the next page would
	// redirect on to the provider, which the pages' CSP (form-action
	// 'self') forbids after a form post.
	c.Response().Header().Set("Cache-Control", "no-store")
	return p.render(c, http.StatusOK, "error", errorPage{base: base{Title: "Signed out"}, Status: http.StatusOK, Code: "signed_out",
		Message: "You are signed out of this registry.", Hint: "Sign in again from any page, or at /login."})
}

type accountPage struct {
	base
	CSRF      string
	User      auth.User
	Publisher string // the publisher whose tokens are shown
	Grantable []entity.Scope
	Tokens    []entity.Token
	NewSecret string // a token just made, shown once
	NewName   string
	Error     string
}

// account answers GET /account: the user, their roles and the tokens of
// the publisher they act as (?publisher=, else their first).
func (p *Pages) account(c echo.Context) error {
	return p.renderAccount(c, http.StatusOK, c.QueryParam("publisher"), nil)
}

func (p *Pages) renderAccount(c echo.Context, status int, publisher string, fill func(*accountPage)) error {
	c.Response().Header().Set("Cache-Control", "no-store")
	u, ok, err := p.user(c)
	if err != nil {
		return err
	}
	if !ok {
		return c.Redirect(http.StatusSeeOther, "/login?next=/account")
	}
	tok, err := p.csrf.token(c)
	if err != nil {
		return err
	}
	page := accountPage{base: base{Title: "Your account", Nav: "account"}, CSRF: tok, User: u}
	if publisher == "" && len(u.Publishers) > 0 {
		publisher = u.Publishers[0]
	}
	if publisher != "" && u.CanActFor(publisher) {
		page.Publisher, page.Grantable = publisher, u.GrantableScopes(publisher)
		all, err := p.svc.ListTokens(c.Request().Context())
		if err != nil {
			return err
		}
		for _, t := range all {
			if t.Publisher == publisher && t.RevokedAt == nil {
				page.Tokens = append(page.Tokens, t)
			}
		}
	}
	if fill != nil {
		fill(&page)
	}
	return p.render(c, status, "account", page)
}

// createToken answers POST /account/tokens: a token of a publisher the
// user may act as, with scopes the user may grant; its secret is shown
// once.
func (p *Pages) createToken(c echo.Context) error {
	publisher := c.FormValue("publisher")
	fail := func(status int, msg string) error {
		return p.renderAccount(c, status, publisher, func(pg *accountPage) { pg.Error = msg })
	}
	u, ok, err := p.user(c)
	if err != nil {
		return err
	}
	if !ok {
		return c.Redirect(http.StatusSeeOther, "/login?next=/account")
	}
	if !p.csrf.valid(c) {
		return fail(http.StatusForbidden, "This form expired or came from another site. No token was made; try again.")
	}
	grantable := u.GrantableScopes(publisher)
	if grantable == nil {
		return fail(http.StatusForbidden, "You may not make tokens for the publisher "+strconv.Quote(publisher)+".")
	}
	var scopes []entity.Scope
	for _, s := range c.Request().PostForm["scope"] {
		if !slices.Contains(grantable, entity.Scope(s)) {
			return fail(http.StatusForbidden, "You may not grant the scope "+strconv.Quote(s)+".")
		}
		scopes = append(scopes, entity.Scope(s))
	}
	if len(scopes) == 0 {
		return fail(http.StatusBadRequest, "Choose at least one scope.")
	}
	nt, err := p.svc.CreateUserToken(c.Request().Context(), publisher, c.FormValue("name"), scopes, u.Name())
	if err != nil {
		status, _, msg := problem.Classify(err)
		return fail(status, msg)
	}
	p.log.Info("token created", "actor", u.Name(), "publisher", publisher, "token", nt.Token.ID, "name", nt.Token.Name, "scopes", scopes)
	return p.renderAccount(c, http.StatusOK, publisher, func(pg *accountPage) { pg.NewSecret, pg.NewName = nt.Secret, nt.Token.Name })
}

// revokeToken answers POST /account/tokens/{id}/revoke for a token of a
// publisher the user may act as.
func (p *Pages) revokeToken(c echo.Context) error {
	u, ok, err := p.user(c)
	if err != nil {
		return err
	}
	if !ok {
		return c.Redirect(http.StatusSeeOther, "/login?next=/account")
	}
	id, _ := strconv.ParseInt(c.Param("id"), 10, 64)
	var tok *entity.Token
	all, err := p.svc.ListTokens(c.Request().Context())
	if err != nil {
		return err
	}
	for i := range all {
		if all[i].ID == id {
			tok = &all[i]
		}
	}
	publisher := ""
	if tok != nil {
		publisher = tok.Publisher
	}
	fail := func(status int, msg string) error {
		return p.renderAccount(c, status, publisher, func(pg *accountPage) { pg.Error = msg })
	}
	if !p.csrf.valid(c) {
		return fail(http.StatusForbidden, "This form expired or came from another site. Nothing was revoked; try again.")
	}
	if tok == nil || !u.CanActFor(tok.Publisher) {
		return fail(http.StatusNotFound, "You have no token with this id.")
	}
	if err := p.svc.RevokeToken(c.Request().Context(), id); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	p.log.Info("token revoked", "actor", u.Name(), "publisher", tok.Publisher, "token", id, "name", tok.Name)
	return c.Redirect(http.StatusSeeOther, "/account?publisher="+tok.Publisher)
}
