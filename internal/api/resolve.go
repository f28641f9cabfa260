package api

import (
	"fmt"
	"net/http"
	"sync"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// ResolveItem answers one hash of a batch. A malformed hash does not fail
// the batch: its item has found=false and error="malformed_hash". The
// handler writes it with appendResolveItem (same fields, same order); the
// type documents the shape and decodes it in clients and tests.
type ResolveItem struct {
	Hash      string   `json:"hash"` // as asked
	Found     bool     `json:"found"`
	Hex       string   `json:"hex,omitempty"`
	Base64    string   `json:"base64,omitempty"`
	Sources   []string `json:"sources"`
	Title     string   `json:"title,omitempty"`
	Withdrawn bool     `json:"withdrawn"`
	Error     string   `json:"error,omitempty"`
}

type resolveJSON struct {
	Hashes []string `json:"hashes"`
}

var errTooManyHashes = apperr.New(apperr.Invalid, "too_many_hashes",
	fmt.Sprintf("at most %d hashes can be resolved in one request", store.MaxResolve))

// resolveFlushBytes is how much encoded JSON is gathered before it is
// written out: large enough for few writes, small enough that a batch
// never sits in memory whole.
const resolveFlushBytes = 32 << 10

var resolveBuffers = sync.Pool{New: func() any { b := make([]byte, 0, resolveFlushBytes+4<<10); return &b }}

// resolve answers a batch in the order asked, streaming the JSON item by
// item through one pooled buffer (which first serves to read the body): no
// per-hash strings (readResolveHashes), no map, no per-item strings beyond
// the titles the store returns.
func (s *Server) resolve(c echo.Context) error {
	bp := resolveBuffers.Get().(*[]byte)
	defer resolveBuffers.Put(bp)
	hashes, err := readResolveHashes(c, *bp)
	if err != nil {
		return err
	}
	if len(hashes) > store.MaxResolve {
		return errTooManyHashes
	}
	digests := make([]protocol.Digest, 0, len(hashes))
	valid := make([]bool, len(hashes))
	for i, h := range hashes {
		if d, err := protocol.ParseDigest(h); err == nil {
			digests = append(digests, d)
			valid[i] = true
		}
	}
	var res []store.Resolution
	if len(digests) > 0 {
		// The store answers in the order asked, so res[j] is digests[j].
		if res, err = s.svc.Resolve(c.Request().Context(), digests); err != nil {
			return err
		}
		if len(res) != len(digests) {
			return fmt.Errorf("store resolved %d of %d hashes", len(res), len(digests))
		}
	}

	w := c.Response()
	w.Header().Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
	w.WriteHeader(http.StatusOK)
	buf := append((*bp)[:0], `{"results":[`...)
	j := 0
	for i, h := range hashes {
		if i > 0 {
			buf = append(buf, ',')
		}
		if !valid[i] {
			buf = appendResolveMiss(buf, h, protocol.ErrMalformedDigest.Code)
		} else {
			buf = s.appendResolution(buf, h, res[j])
			j++
		}
		if len(buf) >= resolveFlushBytes {
			if _, err := w.Write(buf); err != nil {
				return nil // the client left; the status is already sent
			}
			buf = buf[:0]
		}
	}
	buf = append(buf, "]}\n"...)
	_, _ = w.Write(buf)
	*bp = buf[:0]
	return nil
}

// appendResolveMiss writes the item of a malformed hash.
func appendResolveMiss(buf []byte, hash, code string) []byte {
	buf = append(buf, `{"hash":`...)
	buf = appendJSONString(buf, hash)
	buf = append(buf, `,"found":false,"sources":[],"withdrawn":false,"error":`...)
	buf = appendJSONString(buf, code)
	return append(buf, '}')
}

// appendResolution writes the item of a well-formed hash.
func (s *Server) appendResolution(buf []byte, hash string, r store.Resolution) []byte {
	buf = append(buf, `{"hash":`...)
	buf = appendJSONString(buf, hash)
	if r.Found {
		buf = append(buf, `,"found":true,"hex":"`...)
	} else {
		buf = append(buf, `,"found":false,"hex":"`...)
	}
	buf = hexAppend(buf, r.Digest)
	buf = append(buf, `","base64":"`...)
	buf = base64Append(buf, r.Digest)
	buf = append(buf, `","sources":[`...)
	withdrawn := r.Found && r.Withdrawn
	if r.Found && !withdrawn {
		buf = append(buf, '"')
		start := len(buf)
		buf = s.svc.AppendSource(buf, r.Digest)
		buf = appendJSONEscapedInPlace(buf, start)
		buf = append(buf, '"')
	}
	buf = append(buf, ']')
	if r.Found && r.Title != "" {
		buf = append(buf, `,"title":`...)
		buf = appendJSONString(buf, r.Title)
	}
	if withdrawn {
		return append(buf, `,"withdrawn":true}`...)
	}
	return append(buf, `,"withdrawn":false}`...)
}
