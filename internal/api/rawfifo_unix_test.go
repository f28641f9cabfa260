//go:build unix

package api

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/blobs"
	"github.com/agora-registry/registry/internal/registry"
)

// A FIFO someone made in the blob directory under a document's name is
// never opened for reading (that would block a thread per request for
// ever): every raw request answers within 2 s, from the database, and the
// blob is written again as a regular file.
func TestFIFOInBlobDirectoryIsMissing(t *testing.T) {
	for engine, open := range lyingEngines {
		t.Run(engine, func(t *testing.T) {
			st, _ := open(t)
			b, err := blobs.Open(filepath.Join(t.TempDir(), "blobs"), 0)
			if err != nil {
				t.Fatal(err)
			}
			ts, svc := corruptServer(t, st, registry.Config{PublicURL: "http://registry.test", Blobs: b})
			pub, err := svc.Publish(context.Background(), []byte(honestText), nil, "")
			if err != nil {
				t.Fatal(err)
			}
			d := pub.Entry.Digest
			client := &http.Client{Timeout: 2 * time.Second}
			for _, r := range rawRequests(d) {
				if err := os.MkdirAll(filepath.Dir(b.Path(d)), 0o700); err != nil {
					t.Fatal(err)
				}
				os.Remove(b.Path(d))
				if err := syscall.Mkfifo(b.Path(d), 0o600); err != nil {
					t.Fatal(err)
				}
				req, err := http.NewRequest(r.method, ts.URL+"/protocol/"+d.Hex(), nil)
				if err != nil {
					t.Fatal(err)
				}
				for k, v := range r.hdr {
					req.Header.Set(k, v)
				}
				res, err := client.Do(req)
				if err != nil {
					t.Fatalf("%s with a FIFO as its blob: %v", r.name, err)
				}
				body, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if res.StatusCode >= 300 && res.StatusCode != http.StatusNotModified || r.hdr == nil && r.method == http.MethodGet && string(body) != honestText {
					t.Errorf("%s with a FIFO as its blob: %d %q", r.name, res.StatusCode, body)
				}
				svc.WaitBlobs()
				if fi, err := os.Lstat(b.Path(d)); err != nil || !fi.Mode().IsRegular() {
					t.Errorf("%s: the blob was not written again as a regular file: %v", r.name, err)
				}
			}
		})
	}
}
