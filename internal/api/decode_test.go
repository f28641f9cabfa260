package api

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
)

// readSizedBody takes Content-Length as a hint only: the reader decides
// what is read, and its errors are readBody's.
func TestReadSizedBody(t *testing.T) {
	body := strings.Repeat("document text ", 700)
	for _, c := range []struct {
		name     string
		declared int64
		cap      int64
		want     string
		tooLarge bool
	}{
		{"exact length", int64(len(body)), 1 << 20, body, false},
		{"declared longer than sent", int64(len(body)) + 4096, 1 << 20, body, false},
		{"declared shorter than sent", 10, 1 << 20, body, false},
		{"unknown length", -1, 1 << 20, body, false},
		{"over the cap", int64(len(body)), 100, "", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, "/api/v1/protocols", io.NopCloser(strings.NewReader(body)))
			req.ContentLength = c.declared
			rec := httptest.NewRecorder()
			req.Body = http.MaxBytesReader(rec, req.Body, c.cap)
			got, err := readSizedBody(echo.New().NewContext(req, rec))
			var tooLarge *http.MaxBytesError
			if c.tooLarge {
				if !errors.As(err, &tooLarge) {
					t.Fatalf("err = %v, want *http.MaxBytesError", err)
				}
				return
			}
			if err != nil || string(got) != c.want {
				t.Fatalf("read %d bytes, err %v; want %d bytes", len(got), err, len(c.want))
			}
		})
	}
}

// The shortcut table says what mime.ParseMediaType says.
func TestCommonPublishTypes(t *testing.T) {
	for ct, want := range commonPublishTypes {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != want {
			t.Errorf("%q: table says %q, mime.ParseMediaType says %q, %v", ct, want, mt, err)
		}
	}
}
