// Package auth signs users in with an OpenID Connect provider (the
// authorization code flow with PKCE, a checked state and nonce, the ID
// token verified by go-oidc) and keeps their browser sessions in the store.
// Roles come from the ID token's claims by the operator's rules (roles.go).
package auth

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/regularfile"
	"github.com/agora-registry/registry/internal/store"
)

// Store is what sessions need of the store.
type Store interface {
	CreateSession(ctx context.Context, s store.Session) error
	SessionByID(ctx context.Context, idHash [32]byte, now time.Time) (store.Session, error)
	DeleteSession(ctx context.Context, idHash [32]byte) error
}

// Config is the provider and the registry's side of the flow.
type Config struct {
	Issuer       string
	ClientID     string
	ClientSecret string
	Scopes       []string // DefaultScopes when empty
	// PublicURL is the registry's base URL; the provider redirects to
	// PublicURL + CallbackPath.
	PublicURL   string
	Rules       []Rule
	AdminGroups []string
	// SessionTTL is how long a session lasts (DefaultSessionTTL when 0).
	SessionTTL time.Duration
	// Key signs the short-lived cookie of a login under way (state, nonce,
	// PKCE verifier); replicas must share it (the CSRF secret).
	Key []byte
	// HTTPClient makes the calls to the provider (discovery, keys, code
	// exchange); it should go through the SSRF guard.
	HTTPClient *http.Client
	Logger     *slog.Logger
	Now        func() time.Time
}

// Defaults of Config and the flow's bounds.
const (
	CallbackPath      = "/login/callback"
	DefaultSessionTTL = 12 * time.Hour
	// loginTTL bounds how long a user may take at the provider.
	loginTTL = 10 * time.Minute
	// discoveryRetry spaces discovery attempts while the provider is down.
	discoveryRetry = 5 * time.Second
	// providerTimeout bounds one call to the provider.
	providerTimeout = 10 * time.Second
	maxNextBytes    = 1024
)

// DefaultScopes are the scopes asked for when none are configured.
var DefaultScopes = []string{oidc.ScopeOpenID, "email", "profile", "groups"}

// Errors shown to a user whose sign-in failed.
var (
	ErrProviderDown = apperr.New(apperr.Unavailable, "identity_provider_unavailable", "the identity provider cannot be reached; try signing in again in a minute")
	ErrLoginFailed  = apperr.New(apperr.Unauthenticated, "login_failed", "signing in failed; start again from the sign-in link")
)

// OIDC is the sign-in flow and the sessions.
type OIDC struct {
	cfg   Config
	store Store
	log   *slog.Logger

	mu       sync.Mutex
	provider *oidc.Provider
	lastTry  time.Time
	lastErr  error
}

// New checks the configuration; the provider is discovered on first use,
// so a provider that is down at start never stops the registry.
func New(cfg Config, st Store) (*OIDC, error) {
	if cfg.Issuer == "" || cfg.ClientID == "" {
		return nil, errors.New("OpenID Connect needs an issuer and a client id")
	}
	if len(cfg.Key) < 32 {
		return nil, errors.New("OpenID Connect needs a key of at least 32 bytes for its login cookie")
	}
	if len(cfg.Scopes) == 0 {
		cfg.Scopes = DefaultScopes
	}
	if cfg.SessionTTL <= 0 {
		cfg.SessionTTL = DefaultSessionTTL
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: providerTimeout}
	}
	cfg.PublicURL = strings.TrimRight(cfg.PublicURL, "/")
	return &OIDC{cfg: cfg, store: st, log: cfg.Logger}, nil
}

// secure reports whether cookies must be Secure (an https public URL).
func (o *OIDC) secure() bool { return strings.HasPrefix(o.cfg.PublicURL, "https://") }

// discover returns the provider, discovering it at most every
// discoveryRetry while it fails.
func (o *OIDC) discover(ctx context.Context) (*oidc.Provider, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.provider != nil {
		return o.provider, nil
	}
	if now := o.cfg.Now(); !o.lastTry.IsZero() && now.Sub(o.lastTry) < discoveryRetry {
		return nil, o.lastErr
	}
	o.lastTry = o.cfg.Now()
	ctx, cancel := context.WithTimeout(oidc.ClientContext(ctx, o.cfg.HTTPClient), providerTimeout)
	defer cancel()
	p, err := oidc.NewProvider(ctx, o.cfg.Issuer)
	if err != nil {
		o.log.Warn("identity provider discovery failed", "issuer", o.cfg.Issuer, "error", err.Error())
		o.lastErr = ErrProviderDown.With(fmt.Sprintf("the identity provider %s cannot be reached (%v); try again in a minute", o.cfg.Issuer, err))
		return nil, o.lastErr
	}
	o.provider = p
	return p, nil
}

func (o *OIDC) oauth(p *oidc.Provider) *oauth2.Config {
	return &oauth2.Config{
		ClientID: o.cfg.ClientID, ClientSecret: o.cfg.ClientSecret, Endpoint: p.Endpoint(),
		RedirectURL: o.cfg.PublicURL + CallbackPath, Scopes: o.cfg.Scopes,
	}
}

// pending is a login under way, kept in a signed cookie between /login
// and the callback.
type pending struct {
	State    string `json:"s"`
	Nonce    string `json:"n"`
	Verifier string `json:"v"`
	Next     string `json:"x"`
	Expires  int64  `json:"e"`
}

// Begin starts a sign-in: it sets the login cookie and returns the
// provider's URL to redirect to. next is where the user goes afterwards,
// kept only if it is a path on this registry (SafeNext).
func (o *OIDC) Begin(w http.ResponseWriter, r *http.Request, next string) (string, error) {
	p, err := o.discover(r.Context())
	if err != nil {
		return "", err
	}
	pl := pending{State: random(), Nonce: random(), Verifier: oauth2.GenerateVerifier(), Next: SafeNext(next),
		Expires: o.cfg.Now().Add(loginTTL).Unix()}
	b, _ := json.Marshal(pl)
	value := base64.RawURLEncoding.EncodeToString(b)
	http.SetCookie(w, &http.Cookie{Name: o.loginCookie(), Value: value + "." + o.mac(value), Path: "/",
		MaxAge: int(loginTTL / time.Second), HttpOnly: true, Secure: o.secure(), SameSite: http.SameSiteLaxMode})
	return o.oauth(p).AuthCodeURL(pl.State, oidc.Nonce(pl.Nonce), oauth2.S256ChallengeOption(pl.Verifier)), nil
}

// Finish completes a sign-in at the callback: the state must be the login
// cookie's, the code is exchanged with the PKCE verifier, the ID token is
// verified and must carry the cookie's nonce. It stores a session, sets
// its cookie and returns the user and where to go next.
func (o *OIDC) Finish(w http.ResponseWriter, r *http.Request) (User, string, error) {
	pl, ok := o.readPending(r)
	// The login cookie serves one callback only.
	http.SetCookie(w, &http.Cookie{Name: o.loginCookie(), Value: "", Path: "/", MaxAge: -1, HttpOnly: true, Secure: o.secure(), SameSite: http.SameSiteLaxMode})
	if !ok {
		return User{}, "", ErrLoginFailed.With("this sign-in expired or was not started here; start again from the sign-in link")
	}
	q := r.URL.Query()
	if e := q.Get("error"); e != "" {
		return User{}, "", ErrLoginFailed.With("the identity provider refused the sign-in: " + clip(e+" "+q.Get("error_description"), 200))
	}
	if subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(pl.State)) != 1 {
		return User{}, "", ErrLoginFailed.With("the sign-in's state does not match; start again from the sign-in link")
	}
	p, err := o.discover(r.Context())
	if err != nil {
		return User{}, "", err
	}
	ctx, cancel := context.WithTimeout(oidc.ClientContext(r.Context(), o.cfg.HTTPClient), providerTimeout)
	defer cancel()
	tok, err := o.oauth(p).Exchange(ctx, q.Get("code"), oauth2.VerifierOption(pl.Verifier))
	if err != nil {
		o.log.Warn("sign-in: code exchange failed", "error", err.Error())
		return User{}, "", ErrLoginFailed.With("the identity provider did not accept the sign-in's code (used already, or expired); start again from the sign-in link")
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return User{}, "", ErrLoginFailed.With("the identity provider sent no ID token")
	}
	idt, err := p.Verifier(&oidc.Config{ClientID: o.cfg.ClientID, Now: o.cfg.Now}).Verify(ctx, raw)
	if err != nil {
		o.log.Warn("sign-in: ID token refused", "error", err.Error())
		return User{}, "", ErrLoginFailed.With("the identity provider's ID token did not verify")
	}
	if subtle.ConstantTimeCompare([]byte(idt.Nonce), []byte(pl.Nonce)) != 1 {
		o.log.Warn("sign-in: ID token nonce mismatch", "subject", idt.Subject)
		return User{}, "", ErrLoginFailed.With("the ID token was not issued for this sign-in (nonce mismatch)")
	}
	var c Claims
	if err := idt.Claims(&c); err != nil {
		return User{}, "", ErrLoginFailed.With("the ID token's claims could not be read")
	}
	u := User{Subject: idt.Subject, Email: c.Email, Roles: Grant(o.cfg.Rules, o.cfg.AdminGroups, c)}
	if err := o.startSession(r.Context(), w, u); err != nil {
		return User{}, "", err
	}
	o.log.Info("signed in", "actor", u.Name(), "subject", u.Subject, "admin", u.Admin, "publishers", u.Publishers)
	return u, pl.Next, nil
}

func (o *OIDC) startSession(ctx context.Context, w http.ResponseWriter, u User) error {
	id := random()
	now := o.cfg.Now()
	s := store.Session{IDHash: sha256.Sum256([]byte(id)), Subject: u.Subject, Email: u.Email, Admin: u.Admin,
		Publishers: u.Publishers, CreatedAt: now, ExpiresAt: now.Add(o.cfg.SessionTTL)}
	if err := o.store.CreateSession(ctx, s); err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{Name: o.sessionCookie(), Value: id, Path: "/", MaxAge: int(o.cfg.SessionTTL / time.Second),
		HttpOnly: true, Secure: o.secure(), SameSite: http.SameSiteLaxMode})
	return nil
}

// User returns the request's signed-in user, if its session cookie names a
// live session.
func (o *OIDC) User(r *http.Request) (User, bool, error) {
	ck, err := r.Cookie(o.sessionCookie())
	if err != nil || ck.Value == "" || len(ck.Value) > 100 {
		return User{}, false, nil
	}
	s, err := o.store.SessionByID(r.Context(), sha256.Sum256([]byte(ck.Value)), o.cfg.Now())
	if errors.Is(err, store.ErrNotFound) {
		return User{}, false, nil
	}
	if err != nil {
		return User{}, false, err
	}
	return User{Subject: s.Subject, Email: s.Email, Roles: Roles{Admin: s.Admin, Publishers: s.Publishers}}, true, nil
}

// Logout ends the request's session and clears its cookie.
func (o *OIDC) Logout(w http.ResponseWriter, r *http.Request) error {
	http.SetCookie(w, &http.Cookie{Name: o.sessionCookie(), Value: "", Path: "/", MaxAge: -1, HttpOnly: true, Secure: o.secure(), SameSite: http.SameSiteLaxMode})
	ck, err := r.Cookie(o.sessionCookie())
	if err != nil || ck.Value == "" {
		return nil
	}
	return o.store.DeleteSession(r.Context(), sha256.Sum256([]byte(ck.Value)))
}

// readPending returns the login cookie's login if this server signed it
// and it has not expired.
func (o *OIDC) readPending(r *http.Request) (pending, bool) {
	ck, err := r.Cookie(o.loginCookie())
	if err != nil {
		return pending{}, false
	}
	value, tag, ok := strings.Cut(ck.Value, ".")
	if !ok || !hmac.Equal([]byte(tag), []byte(o.mac(value))) {
		return pending{}, false
	}
	b, err := base64.RawURLEncoding.DecodeString(value)
	var pl pending
	if err != nil || json.Unmarshal(b, &pl) != nil || o.cfg.Now().Unix() > pl.Expires || pl.State == "" || pl.Nonce == "" {
		return pending{}, false
	}
	return pl, true
}

func (o *OIDC) mac(value string) string {
	m := hmac.New(sha256.New, o.cfg.Key)
	m.Write([]byte("registry-oidc-login-v1\x00" + value))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// Cookie names: __Host- prefixed over https, so no subdomain can set them.
func (o *OIDC) sessionCookie() string { return o.cookieName("registry_session") }
func (o *OIDC) loginCookie() string   { return o.cookieName("registry_login") }

func (o *OIDC) cookieName(n string) string {
	if o.secure() {
		return "__Host-" + n
	}
	return n
}

// SafeNext keeps next only if it is a path on this registry: it must start
// with one "/" (not "//" or "/\", which browsers take as another host) and
// carry no scheme or host; anything else becomes "/".
func SafeNext(next string) string {
	if next == "" || len(next) > maxNextBytes || next[0] != '/' || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") ||
		strings.ContainsAny(next, "\\\r\n\t") {
		return "/"
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil {
		return "/"
	}
	return next
}

func random() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

func clip(s string, n int) string { return s[:min(len(s), n)] }

// maxSecretFileBytes bounds a secret file's read.
const maxSecretFileBytes = 4 << 10

// ReadSecretFile reads a secret (what names it in errors): a regular file
// (a FIFO is refused, never blocked on), trimmed of surrounding white
// space.
func ReadSecretFile(what, path string) (string, error) {
	f, _, err := regularfile.Open(path, os.O_RDONLY, 0)
	if err != nil {
		return "", fmt.Errorf("reading the %s file: %w", what, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSecretFileBytes+1))
	if err != nil {
		return "", fmt.Errorf("reading the %s file: %w", what, err)
	}
	if len(b) > maxSecretFileBytes {
		return "", fmt.Errorf("the %s file %s is larger than %d bytes", what, path, maxSecretFileBytes)
	}
	s := strings.TrimSpace(string(b))
	if s == "" {
		return "", fmt.Errorf("the %s file %s is empty", what, path)
	}
	return s, nil
}
