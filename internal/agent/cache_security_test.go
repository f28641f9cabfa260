package agent

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/protocol"
)

// TestDocumentsOfUnsupportedHashesAreNotCached: with an LLM configured any
// hash is answered, so a sender could fill the disk with new documents
// sent inline. Those are fetched, verified and used, but not cached; the
// documents of protocols with a routine still are.
func TestDocumentsOfUnsupportedHashesAreNotCached(t *testing.T) {
	weather, wd := weatherDoc(t)
	cfg := weatherConfig(wd)
	cfg.LLM = LLMConfig{BaseURL: newLLMStub(t, "ok") + "/v1", Model: "test"}
	cfg.CacheDir = t.TempDir()
	_, bob := startBob(t, cfg)
	for i := 0; i < 20; i++ {
		doc := []byte(fmt.Sprintf("---\nname: Minted %d\n---\n%s\n", i, strings.Repeat("filler ", 10_000)))
		sums, err := protocol.Hash(doc)
		if err != nil {
			t.Fatal(err)
		}
		if a := call(t, "POST", bob, tx(sums.SHA1.Base64(), []string{agora.DataURI(doc)}, "hi")); a.Status != StatusSuccess || a.Body != "ok" {
			t.Fatalf("minted protocol %d: %+v", i, a)
		}
	}
	if n := countFiles(t, cfg.CacheDir); n != 0 {
		t.Fatalf("%d documents of hashes without a routine were cached", n)
	}
	if a := call(t, "POST", bob, tx(wd.Hex(), []string{agora.DataURI(weather)}, londonQuery)); a.Status != StatusSuccess {
		t.Fatalf("weather: %+v", a)
	}
	if n := countFiles(t, cfg.CacheDir); n != 1 {
		t.Fatalf("%d files cached after resolving the supported protocol, want 1", n)
	}
}

func countFiles(t *testing.T, dir string) int {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}
