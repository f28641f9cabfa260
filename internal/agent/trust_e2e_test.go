package agent

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/testing/security"
	"github.com/agora-registry/registry/internal/translog"
)

// TestTrustRequiresProof: Bob trusts one log and two of three witnesses.
// A sender hands him the Weather Protocol as a data: URI: before the
// registry has published it he refuses (protocol_unproved, saying why);
// once it is published and its checkpoint cosigned, he answers. A quorum
// one short, a registry serving the proof of other bytes or an oversized
// proof, and a document already in his cache but proved only in an
// untrusted log are all refused.
func TestTrustRequiresProof(t *testing.T) {
	ctx := context.Background()
	doc, d := weatherDoc(t)
	reg := security.Start(t, security.Options{})
	w1, w2, w3 := security.NewWitness(t, "w1.test"), security.NewWitness(t, "w2.test"), security.NewWitness(t, "w3.test")
	cosigned := security.CosigningProxy(t, reg.URL, nil, w1, w2)
	trust := TrustConfig{LogKeys: []string{reg.Log.VerifierKey()}, WitnessKeys: []string{w1.VerifierKey, w2.VerifierKey, w3.VerifierKey}, Quorum: 2}
	bob := func(registry string, trust TrustConfig, cacheDir string) string {
		cfg := weatherConfig(d)
		cfg.Registries, cfg.Trust, cfg.CacheDir = []string{registry}, trust, cacheDir
		_, url := startBob(t, cfg)
		return url
	}
	send := func(url string) Answer {
		return call(t, "POST", url, tx(d.Hex(), []string{agora.DataURI(doc)}, londonQuery))
	}
	refused := func(a Answer, why string) {
		t.Helper()
		if a.Status != StatusRejected || a.Code != "protocol_unproved" || !strings.Contains(a.Error, "configured registry 1") || !strings.Contains(a.Error, why) {
			t.Fatalf("answer %+v, want protocol_unproved saying %q", a, why)
		}
	}

	trusting := bob(cosigned, trust, t.TempDir())
	refused(send(trusting), "no document with this hash is in the transparency log")
	if _, err := reg.Svc.Publish(ctx, doc, nil, ""); err != nil {
		t.Fatal(err)
	}
	other, err := reg.Svc.Publish(ctx, []byte("# Other\n\nNot the weather.\n"), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if a := send(trusting); a.Status != StatusSuccess || a.Body != londonAnswer {
		t.Fatalf("with a proof: %+v", a)
	}

	// Check: the quorum (w3 did not cosign).
	strict := trust
	strict.Quorum = 3
	refused(send(bob(cosigned, strict, t.TempDir())), "2 of the 3 configured witnesses cosigned")
	// Check: the proof binds the bytes (the registry answers another document's proof).
	swapped := security.CosigningProxy(t, reg.URL, func(path string, b []byte) []byte {
		if strings.HasSuffix(path, ".tlog-proof") {
			return fetch(t, cosigned+"/protocol/"+other.Entry.Digest.Hex()+".tlog-proof")
		}
		return b
	}, w1, w2)
	refused(send(bob(swapped, trust, t.TempDir())), "not the publish of "+d.Hex())
	// Check: the proof's size bound.
	huge := security.CosigningProxy(t, reg.URL, func(path string, b []byte) []byte {
		return append(b, bytes.Repeat([]byte("— x.test AAAA\n"), agora.MaxTLogProofBytes/14)...)
	}, w1, w2)
	refused(send(bob(huge, trust, t.TempDir())), "more than")

	// Check: a cached document needs a proof too. A Bob without trust
	// caches it from an untrusted log's registry; Bob with trust, on the
	// same cache and registry, refuses it.
	skey, err := translog.GenerateKey("untrusted.test")
	if err != nil {
		t.Fatal(err)
	}
	untrusted := security.Start(t, security.Options{LogKey: skey})
	if _, err := untrusted.Svc.Publish(ctx, doc, nil, ""); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	if a := call(t, "POST", bob(untrusted.URL, TrustConfig{}, cache), tx(d.Hex(), nil, londonQuery)); a.Status != StatusSuccess {
		t.Fatalf("without trust: %+v", a)
	}
	refused(call(t, "POST", bob(untrusted.URL, trust, cache), tx(d.Hex(), nil, londonQuery)), "not trusted")

	// Witness keys without a log key, or trust without a registry, are
	// refused at start.
	for _, bad := range []Config{{Trust: TrustConfig{WitnessKeys: trust.WitnessKeys, Quorum: 1}}, {Trust: trust}} {
		bad.CacheDir = t.TempDir()
		if _, err := New(bad, nil); err == nil {
			t.Fatalf("config %+v was accepted", bad.Trust)
		}
	}
}

func fetch(t *testing.T, u string) []byte {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return b
}
