package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store/storetest"
)

// generateDocument is the corpus every engine, baseline and run shares.
var generateDocument = storetest.GenerateDocument

// Corpus is the seeded document set: written once as DIR/<hex>.md, which is
// what `registry import DIR` reads and what nginx and the net/http baseline
// serve.
type Corpus struct {
	Dir    string
	Hexes  []string // Hexes[i] is the digest of generateDocument(i)
	Bytes  int64
	Common string // in about one document in four (search "common word")
	Rare   string // in about one document in a thousand (search "rare word")
	Tag    string // on about one document in eight (search "tag filter")
}

// WriteCorpus writes n documents to dir.
func WriteCorpus(dir string, n int) (*Corpus, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	c := &Corpus{Dir: dir, Hexes: make([]string, n), Common: storetest.CommonWord, Rare: storetest.RareWord, Tag: storetest.CommonTag}
	for i := 0; i < n; i++ {
		doc := generateDocument(i)
		sums, err := protocol.Hash(doc)
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		h := sums.SHA1.Hex()
		c.Hexes[i] = h
		c.Bytes += int64(len(doc))
		if err := os.WriteFile(filepath.Join(dir, h+".md"), doc, 0o644); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// LoadDir reads the corpus back into memory, for the net/http baseline.
func LoadDir(dir string) (map[string][]byte, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	docs := make(map[string][]byte, len(entries))
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".md") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		docs[strings.TrimSuffix(name, ".md")] = b
	}
	return docs, nil
}
