package translog_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/testing/security"
)

// TestTLogProofOverHTTP: GET /protocol/{hash}.tlog-proof answers a
// c2sp.org/tlog-proof that agora verifies offline against the document's
// bytes and the log's key, for a document of a large tree (the proof
// needs stored hashes), one still queued, and the Base64 spelling; an
// unknown hash is 404 not_logged.
func TestTLogProofOverHTTP(t *testing.T) {
	for _, engine := range security.Engines {
		t.Run(engine, func(t *testing.T) {
			srv := security.Start(t, security.Options{Engine: engine})
			ds := publish(t, srv, "Proved", 300)
			integrate(t, srv)
			queued := publish(t, srv, "Queued", 1)[0] // integrated by the proof's lookup
			policy := agora.WitnessPolicy{LogKey: srv.Log.VerifierKey()}
			for _, d := range []agora.Digest{ds[0], ds[137], ds[299], queued} {
				for _, spelling := range []string{d.Hex(), url.PathEscape(d.Base64())} {
					status, h, proof := get(t, srv.URL+"/protocol/"+spelling+".tlog-proof")
					if status != http.StatusOK || h.Get("Content-Type") != "text/plain; charset=utf-8" || !strings.Contains(h.Get("Cache-Control"), "max-age") {
						t.Fatalf("%s: %d %v %s", spelling, status, h, proof)
					}
					_, _, doc := get(t, srv.URL+"/protocol/"+d.Hex())
					p, err := agora.VerifyDocumentProof(proof, doc, policy)
					if err != nil || p.Record.Digest != d {
						t.Fatalf("%s: %v\n%s", spelling, err, proof)
					}
					// The proof binds the bytes: another document's are refused.
					if _, err := agora.VerifyDocumentProof(proof, append(doc, '\n'), policy); err == nil {
						t.Fatalf("%s: the proof was accepted for other bytes", spelling)
					}
				}
			}
			status, _, body := get(t, srv.URL+"/protocol/"+strings.Repeat("ab", 20)+".tlog-proof")
			var problem struct{ Code string }
			if status != http.StatusNotFound || json.Unmarshal(body, &problem) != nil || problem.Code != "not_logged" {
				t.Fatalf("unknown hash: %d %s", status, body)
			}
			if status, _, _ := get(t, srv.URL+"/protocol/nothex.tlog-proof"); status != http.StatusBadRequest {
				t.Fatalf("malformed hash: %d", status)
			}
		})
	}
}
