package html

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net/http"

	"github.com/labstack/echo/v4"
)

// csrf protects forms with signed double-submit tokens: a random nonce
// lives in a SameSite=Strict, HttpOnly cookie, and the form carries the
// nonce's HMAC under a server secret. A forged cross-site post has neither
// the cookie (SameSite) nor a way to compute the form token (the secret),
// and a subdomain that plants a cookie still cannot sign it. Browsers that
// send Sec-Fetch-Site get one more check: only same-origin posts pass.
type csrf struct {
	secret []byte
	secure bool
}

const (
	csrfCookie = "registry_csrf"
	csrfField  = "csrf_token"
	nonceBytes = 32
)

func newCSRF(secret []byte, secure bool) *csrf {
	return &csrf{secret: secret, secure: secure}
}

// token returns the form token for this browser, setting the nonce cookie
// when the browser has none (or a malformed one).
func (x *csrf) token(c echo.Context) (string, error) {
	nonce, ok := x.nonce(c)
	if !ok {
		nonce = make([]byte, nonceBytes)
		if _, err := rand.Read(nonce); err != nil {
			return "", err
		}
		c.SetCookie(&http.Cookie{
			Name: csrfCookie, Value: base64.RawURLEncoding.EncodeToString(nonce),
			Path: "/", HttpOnly: true, Secure: x.secure, SameSite: http.SameSiteStrictMode,
			MaxAge: 12 * 60 * 60,
		})
	}
	return x.sign(nonce), nil
}

// valid reports whether a form post carries a token matching its cookie.
func (x *csrf) valid(c echo.Context) bool {
	switch c.Request().Header.Get("Sec-Fetch-Site") {
	case "", "same-origin":
	default:
		return false
	}
	nonce, ok := x.nonce(c)
	if !ok {
		return false
	}
	got, err := base64.RawURLEncoding.DecodeString(c.FormValue(csrfField))
	if err != nil {
		return false
	}
	want, _ := base64.RawURLEncoding.DecodeString(x.sign(nonce))
	return hmac.Equal(got, want)
}

func (x *csrf) nonce(c echo.Context) ([]byte, bool) {
	ck, err := c.Cookie(csrfCookie)
	if err != nil {
		return nil, false
	}
	n, err := base64.RawURLEncoding.DecodeString(ck.Value)
	if err != nil || len(n) != nonceBytes {
		return nil, false
	}
	return n, true
}

func (x *csrf) sign(nonce []byte) string {
	m := hmac.New(sha256.New, x.secret)
	m.Write([]byte("registry-csrf-v1\x00"))
	m.Write(nonce)
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}
