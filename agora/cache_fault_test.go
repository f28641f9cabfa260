package agora

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// otherDoc is a valid document with a different hash: a cache file swapped
// for another protocol must not be served under the wrong hash.
const otherDoc = "---\nname: Other\ndescription: o\nmultiround: false\n---\n\nAnother body.\n"

// TestCacheCorruptionKinds damages the cached file in each way a disk,
// a crash or a careless operator can, then resolves again through the
// Resolver: the damage is detected by hash, the source is asked again, the
// right bytes come back and the file on disk is repaired.
// (TestCorruptedCacheFileIsRefetched covers appended bytes through Get.)
func TestCacheCorruptionKinds(t *testing.T) {
	damage := map[string]func(b []byte) []byte{
		"truncated":      func(b []byte) []byte { return b[:len(b)/2] },
		"empty":          func([]byte) []byte { return nil },
		"flipped byte":   func(b []byte) []byte { c := bytes.Clone(b); c[len(c)/3] ^= 0x01; return c },
		"flipped last":   func(b []byte) []byte { c := bytes.Clone(b); c[len(c)-1] ^= 0x80; return c },
		"other document": func([]byte) []byte { return []byte(otherDoc) },
		"zeroed":         func(b []byte) []byte { return make([]byte, len(b)) },
		"oversized": func(b []byte) []byte {
			return append(bytes.Clone(b), make([]byte, DefaultMaxDocumentBytes)...)
		},
	}
	for name, corrupt := range damage {
		t.Run(name, func(t *testing.T) {
			good := newSource(t, doc, 200)
			r := newResolver(t, []string{"127.0.0.1"})
			if _, err := r.Resolve(context.Background(), digest, []string{good.URL}); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(r.cache.dir, digest.Hex())
			orig, err := os.ReadFile(path)
			if err != nil || string(orig) != doc {
				t.Fatalf("cache file after the first resolve: %q, %v", orig, err)
			}
			if err := os.WriteFile(path, corrupt(orig), 0o644); err != nil {
				t.Fatal(err)
			}

			got, err := r.Resolve(context.Background(), digest, []string{good.URL})
			if err != nil {
				t.Fatalf("resolve over a damaged cache: %v", err)
			}
			if string(got.Document) != doc {
				t.Fatalf("served %q, want the original document", got.Document)
			}
			if got.Origin != good.URL || good.hits.Load() != 2 {
				t.Fatalf("damage not detected: origin %q, source hits %d (want a refetch)", got.Origin, good.hits.Load())
			}
			if b, err := os.ReadFile(path); err != nil || string(b) != doc {
				t.Fatalf("cache not repaired: %q, %v", b, err)
			}
			// Repaired means the next resolve is a cache hit again.
			if got, err := r.Resolve(context.Background(), digest, []string{good.URL}); err != nil || got.Origin != "cache" {
				t.Fatalf("after repair: origin %q, err %v", got.Origin, err)
			}
		})
	}
}

// TestCacheCorruptedWithNoSourceLeft: a damaged cache entry whose sources
// are all gone must fail the resolve, never serve the damaged bytes.
func TestCacheCorruptedWithNoSourceLeft(t *testing.T) {
	good := newSource(t, doc, 200)
	r := newResolver(t, []string{"127.0.0.1"})
	if _, err := r.Resolve(context.Background(), digest, []string{good.URL}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(r.cache.dir, digest.Hex())
	if err := os.WriteFile(path, []byte(otherDoc), 0o644); err != nil {
		t.Fatal(err)
	}
	good.Close()
	got, err := r.Resolve(context.Background(), digest, []string{good.URL})
	if err == nil {
		t.Fatalf("resolved %q from a damaged cache with no source", got.Document)
	}
}
