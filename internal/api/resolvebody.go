package api

import (
	"io"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/store"
)

// resolveBodyHint caps how much room is reserved up front for a resolve
// body, whatever Content-Length claims: 1,000 hex hashes in compact JSON
// are ~43 KB; a larger body grows as it arrives.
const resolveBodyHint = 128 << 10

// readResolveHashes reads a resolve request's hashes. The body is read into
// one string and, in the usual shape, the hashes are substrings of it: one
// allocation for the whole batch instead of encoding/json's reflection and
// one string per hash. Any other body goes through unmarshalStrict, so it
// is accepted or refused exactly as every other JSON request. scratch is
// buffer space for the reads.
func readResolveHashes(c echo.Context, scratch []byte) ([]string, error) {
	req := c.Request()
	body, err := readBodyString(req.Body, req.ContentLength, scratch)
	if err != nil {
		return nil, err // *http.MaxBytesError maps to 413
	}
	if hashes, ok := scanHashList(body); ok {
		return hashes, nil
	}
	var r resolveJSON
	if err := unmarshalStrict([]byte(body), &r); err != nil {
		return nil, err
	}
	return r.Hashes, nil
}

// readBodyString reads r to its end into one string (strings.Builder hands
// its bytes over without a copy), reserving size bytes up to
// resolveBodyHint first.
func readBodyString(r io.Reader, size int64, scratch []byte) (string, error) {
	if r == nil {
		return "", nil
	}
	var sb strings.Builder
	sb.Grow(int(min(max(size, 0), resolveBodyHint)))
	if _, err := io.CopyBuffer(&sb, r, scratch[:cap(scratch)]); err != nil {
		return "", err
	}
	return sb.String(), nil
}

// scanHashList reads the usual shape of a resolve request,
// {"hashes":["…",…]} with any JSON whitespace, whose strings hold only
// printable ASCII without escapes. ok is false for anything else (escapes,
// non-ASCII, another or a repeated key, null, a syntax error, trailing
// data); the caller then decodes the body with encoding/json. The strings
// returned are substrings of body.
func scanHashList(body string) (hashes []string, ok bool) {
	p := hashScanner{s: body}
	if !p.take('{') {
		return nil, false
	}
	if key, ok := p.plainString(); !ok || key != "hashes" || !p.take(':') || !p.take('[') {
		return nil, false
	}
	// Each hash is two quotes; more than MaxResolve is refused after the
	// scan, so the reservation stops there.
	hashes = make([]string, 0, min(strings.Count(body[p.i:], `"`)/2, store.MaxResolve+1))
	if !p.take(']') {
		for {
			h, ok := p.plainString()
			if !ok {
				return nil, false
			}
			hashes = append(hashes, h)
			if p.take(',') {
				continue
			}
			if p.take(']') {
				break
			}
			return nil, false
		}
	}
	if !p.take('}') {
		return nil, false
	}
	p.skipSpace()
	return hashes, p.i == len(p.s)
}

// hashScanner walks a JSON text for scanHashList.
type hashScanner struct {
	s string
	i int
}

// skipSpace passes JSON whitespace.
func (p *hashScanner) skipSpace() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// take passes whitespace and then c, if c is next.
func (p *hashScanner) take(c byte) bool {
	p.skipSpace()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// plainString passes whitespace and a string of printable ASCII without
// escapes (whose JSON text is its value), and returns its value.
func (p *hashScanner) plainString() (string, bool) {
	if !p.take('"') {
		return "", false
	}
	start := p.i
	for ; p.i < len(p.s); p.i++ {
		switch c := p.s[p.i]; {
		case c == '"':
			p.i++
			return p.s[start : p.i-1], true
		case c < 0x20 || c == '\\' || c >= utf8.RuneSelf:
			return "", false
		}
	}
	return "", false
}
