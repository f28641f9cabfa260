package api

import (
	"crypto/sha1"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/registry"
)

// headerOnly is a ResponseWriter that keeps only the header map, so the
// allocations counted are writeRaw's own.
type headerOnly struct{ h http.Header }

func (w headerOnly) Header() http.Header       { return w.h }
func (headerOnly) WriteHeader(int)             {}
func (headerOnly) Write(b []byte) (int, error) { return len(b), nil }

// A HEAD or a 304 from a blob costs writeRaw only the values it must
// build (the ETag's slice; the length's slice and digits): every constant
// header is a shared value under its canonical key. Through Header.Set each
// would cost a canonicalization and a slice, which on these answers was
// most of the raw path's cost over the old one.
func TestWriteRawAllocations(t *testing.T) {
	d := protocol.Digest(sha1.Sum([]byte("# Doc\n")))
	doc := &registry.RawDocument{Digest: d, Size: 1234}
	etag := etagOf(d)
	for _, tc := range []struct {
		name        string
		method      string
		notModified bool
		want        float64
	}{
		{"HEAD", http.MethodHead, false, 3},
		{"304", http.MethodGet, true, 1},
	} {
		r := httptest.NewRequest(tc.method, "/protocol/"+d.Hex(), nil)
		w := headerOnly{http.Header{}}
		writeRaw(w, r, doc, etag, tc.notModified) // the map holds its keys from now on
		if n := testing.AllocsPerRun(100, func() { writeRaw(w, r, doc, etag, tc.notModified) }); n != tc.want {
			t.Errorf("%s: %v allocations, want %v", tc.name, n, tc.want)
		}
	}
}
