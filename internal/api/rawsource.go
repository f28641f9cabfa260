package api

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/agora-registry/registry/internal/blobs"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/registry"
)

// rawSource is where a raw answer's bytes come from without asking the
// store: the memory cache or the document's blob file. A body-less answer
// (HEAD, 304) of a blob needs only its size, not an open file.
type rawSource struct {
	doc *registry.RawDocument
	// small is a blob read whole into buf (a smallBlobs buffer); file is
	// a larger one, sent with sendfile.
	small []byte
	buf   *[]byte
	file  *blobs.File
	size  int64
	d     protocol.Digest
}

// smallBlob is the largest blob read into memory to answer; larger ones
// are sent from the file with sendfile. The corpus's documents (1-8 KB)
// all fit.
const smallBlob = 32 << 10

var smallBlobs = sync.Pool{New: func() any { b := make([]byte, smallBlob); return &b }}

// findRaw looks d up in the cache, then in the blob directory.
func (s *Server) findRaw(r *http.Request, d protocol.Digest) (rawSource, bool) {
	if doc, ok := s.svc.CachedRaw(d); ok {
		return rawSource{doc: doc, d: d}, true
	}
	// A body-less answer needs the size of a verified file: a 304 or a
	// HEAD vouches for the bytes as much as a 200 does.
	if r.Method == http.MethodHead || ifNoneMatch(r, d) {
		n, ok := s.svc.BlobSize(d)
		return rawSource{size: n, d: d}, ok
	}
	if expNoSmall {
		return s.findRawFile(d)
	}
	var bp *[]byte
	if expNoPool {
		b := make([]byte, smallBlob)
		bp = &b
	} else {
		bp = smallBlobs.Get().(*[]byte)
	}
	small, doc, large, ok := s.svc.BlobRead(d, *bp)
	switch {
	case doc != nil:
		smallBlobs.Put(bp)
		return rawSource{doc: doc, d: d}, true
	case ok:
		return rawSource{small: small.Content, buf: bp, size: int64(len(small.Content)), d: d}, true
	}
	smallBlobs.Put(bp)
	if !large {
		return rawSource{}, false
	}
	return s.findRawFile(d)
}

func (s *Server) findRawFile(d protocol.Digest) (rawSource, bool) {
	f, ok := s.svc.BlobFile(d)
	if !ok {
		return rawSource{}, false
	}
	if doc, ok := s.svc.Promote(d, f); ok {
		f.Close()
		return rawSource{doc: doc, d: d}, true
	}
	return rawSource{file: f, size: f.Size, d: d}, true
}

func (src rawSource) close() {
	if src.file != nil {
		src.file.Close()
	}
	if src.buf != nil {
		smallBlobs.Put(src.buf)
	}
}

// ifNoneMatch reports whether r's If-None-Match matches d's ETag.
func ifNoneMatch(r *http.Request, d protocol.Digest) bool {
	inm := r.Header["If-None-Match"]
	return len(inm) > 0 && etagMatches(inm[0], `"`+d.Hex()+`"`)
}

// write answers from the source with writeRaw's headers and returns the
// status and the body bytes written. A GET's body is copied from the file
// to the connection, which the standard library does with sendfile; a
// Range request is left to http.ServeContent.
func (src rawSource) write(w http.ResponseWriter, r *http.Request) (int, int64) {
	if src.doc != nil {
		if r.Header["Range"] != nil && r.Method == http.MethodGet {
			if src.doc.DeprecationValues != nil {
				w.Header()["Deprecation"] = src.doc.DeprecationValues
			}
			if src.doc.LinkValues != nil {
				w.Header()["Link"] = src.doc.LinkValues
			}
			return serveRange(w, r, src.doc.ETagValues, bytes.NewReader(src.doc.Content))
		}
		status := writeRaw(w, r, src.doc)
		if status == http.StatusOK && r.Method == http.MethodGet {
			return status, int64(len(src.doc.Content))
		}
		return status, 0
	}
	etag := []string{`"` + src.d.Hex() + `"`}
	if r.Header["Range"] != nil && r.Method == http.MethodGet {
		switch {
		case src.file != nil:
			return serveRange(w, r, etag, src.file)
		case src.small != nil:
			return serveRange(w, r, etag, bytes.NewReader(src.small))
		}
	}
	h := w.Header()
	h["Etag"] = etag
	h["Cache-Control"] = rawCacheControlValues
	h["X-Content-Type-Options"] = nosniffValues
	if ifNoneMatch(r, src.d) {
		w.WriteHeader(http.StatusNotModified)
		return http.StatusNotModified, 0
	}
	h["Content-Type"] = rawContentTypeValues
	h["Content-Length"] = []string{strconv.FormatInt(src.size, 10)}
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodGet {
		return http.StatusOK, 0
	}
	if src.small != nil {
		n, _ := w.Write(src.small)
		return http.StatusOK, int64(n)
	}
	if src.file == nil {
		return http.StatusOK, 0
	}
	n, _ := io.Copy(w, src.file.File)
	return http.StatusOK, n
}

// serveRange answers a Range request with the raw headers, through
// http.ServeContent (206, 416, If-Range).
func serveRange(w http.ResponseWriter, r *http.Request, etag []string, content io.ReadSeeker) (int, int64) {
	h := w.Header()
	h["Etag"] = etag
	h["Cache-Control"] = rawCacheControlValues
	h["X-Content-Type-Options"] = nosniffValues
	h["Content-Type"] = rawContentTypeValues
	sw := &statusWriter{ResponseWriter: w}
	http.ServeContent(sw, r, "", time.Time{}, content)
	return sw.status, sw.n
}

// statusWriter records what http.ServeContent answered (metrics, logs).
type statusWriter struct {
	http.ResponseWriter
	status int
	n      int64
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.n += int64(n)
	return n, err
}
