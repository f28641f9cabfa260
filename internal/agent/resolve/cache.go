// Package resolve turns a protocol hash and the sender's sources into a
// verified document: local disk cache first, then each source in turn, then
// the configured registries.
package resolve

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agora-registry/registry/internal/protocol"
)

// Cache keeps verified documents on disk, one file per hex digest, so they
// survive restarts. Every read is re-verified: a file damaged on disk is
// deleted and treated as a miss.
type Cache struct {
	dir      string
	maxBytes int
}

// OpenCache creates dir if needed.
func OpenCache(dir string, maxBytes int) (*Cache, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating cache directory: %w", err)
	}
	if maxBytes <= 0 {
		maxBytes = protocol.DefaultMaxDocumentBytes
	}
	return &Cache{dir: dir, maxBytes: maxBytes}, nil
}

func (c *Cache) path(d protocol.Digest) string { return filepath.Join(c.dir, d.Hex()) }

// Get returns the cached document for d, or ok=false on a miss.
func (c *Cache) Get(d protocol.Digest) (doc []byte, ok bool, err error) {
	f, err := os.Open(c.path(d))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	info, statErr := f.Stat()
	if statErr == nil && info.Size() <= int64(c.maxBytes) {
		doc = make([]byte, info.Size())
		_, err = readFull(f, doc)
	}
	f.Close()
	if statErr != nil {
		return nil, false, statErr
	}
	if err == nil && int64(len(doc)) == info.Size() && protocol.Verify(doc, d) == nil {
		return doc, true, nil
	}
	// Damaged, truncated or oversized: drop it so the next fetch repairs it.
	if rmErr := os.Remove(c.path(d)); rmErr != nil && !errors.Is(rmErr, fs.ErrNotExist) {
		return nil, false, rmErr
	}
	return nil, false, nil
}

// Put stores a document that the caller has verified against d. The write
// is atomic (temporary file, then rename), so readers never see half a file.
func (c *Cache) Put(d protocol.Digest, doc []byte) error {
	tmp, err := os.CreateTemp(c.dir, ".tmp-"+d.Hex()+"-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(doc)
	serr := tmp.Sync()
	cerr := tmp.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), c.path(d)); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

func readFull(f *os.File, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := f.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
