package html

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

// csrf protects forms with signed double-submit tokens. The server mints
// every nonce: the cookie carries issue time and randomness with a MAC
// under the server secret, so a cookie the server did not mint (planted by
// a sibling subdomain, say) or an expired one is no nonce at all and gets
// no token. The form carries a second MAC of the nonce, compared with
// hmac.Equal. Go's http.CrossOriginProtection refuses cross-origin posts by
// Sec-Fetch-Site or Origin; over HTTPS the cookie is __Host- prefixed, so no
// subdomain can even set it.
type csrf struct {
	secret []byte
	secure bool
	cookie string
	origin *http.CrossOriginProtection
	now    func() time.Time
}

const (
	csrfCookie       = "registry_csrf"
	csrfSecureCookie = "__Host-registry_csrf"
	csrfField        = "csrf_token"
	csrfMaxAge       = 12 * time.Hour
	nonceRandBytes   = 24
	nonceBytes       = 8 + nonceRandBytes // issue time (Unix seconds), randomness
	cookieTagBytes   = 16
)

func newCSRF(secret []byte, secure bool) *csrf {
	name := csrfCookie
	if secure {
		name = csrfSecureCookie
	}
	return &csrf{secret: secret, secure: secure, cookie: name, origin: http.NewCrossOriginProtection(), now: time.Now}
}

// token returns the form token for this browser, minting and setting a
// nonce cookie when the browser has no valid one.
func (x *csrf) token(c echo.Context) (string, error) {
	nonce, ok := x.nonce(c)
	if !ok {
		nonce = make([]byte, nonceBytes)
		binary.BigEndian.PutUint64(nonce, uint64(x.now().Unix()))
		if _, err := rand.Read(nonce[8:]); err != nil {
			return "", err
		}
		c.SetCookie(&http.Cookie{
			Name: x.cookie, Value: base64.RawURLEncoding.EncodeToString(append(nonce, x.mac("cookie", nonce)[:cookieTagBytes]...)),
			Path: "/", HttpOnly: true, Secure: x.secure, SameSite: http.SameSiteStrictMode,
			MaxAge: int(csrfMaxAge / time.Second),
		})
	}
	return base64.RawURLEncoding.EncodeToString(x.mac("form", nonce)), nil
}

// valid reports whether a form post is same-origin and carries the token
// of its server-minted cookie.
func (x *csrf) valid(c echo.Context) bool {
	if x.origin.Check(c.Request()) != nil {
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
	return hmac.Equal(got, x.mac("form", nonce))
}

// nonce returns the cookie's nonce if this server minted it within
// csrfMaxAge.
func (x *csrf) nonce(c echo.Context) ([]byte, bool) {
	ck, err := c.Cookie(x.cookie)
	if err != nil {
		return nil, false
	}
	b, err := base64.RawURLEncoding.DecodeString(ck.Value)
	if err != nil || len(b) != nonceBytes+cookieTagBytes {
		return nil, false
	}
	nonce, tag := b[:nonceBytes], b[nonceBytes:]
	if !hmac.Equal(tag, x.mac("cookie", nonce)[:cookieTagBytes]) {
		return nil, false
	}
	issued := time.Unix(int64(binary.BigEndian.Uint64(nonce)), 0)
	if age := x.now().Sub(issued); age < -time.Minute || age > csrfMaxAge {
		return nil, false
	}
	return nonce, true
}

// mac is HMAC-SHA256 under the secret, separated by purpose (the cookie's
// tag and the form's token must never be interchangeable).
func (x *csrf) mac(purpose string, nonce []byte) []byte {
	m := hmac.New(sha256.New, x.secret)
	m.Write([]byte("registry-csrf-v2\x00" + purpose + "\x00"))
	m.Write(nonce)
	return m.Sum(nil)
}
