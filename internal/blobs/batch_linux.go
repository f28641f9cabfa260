//go:build linux

package blobs

import (
	"crypto/sha1"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/agora-registry/registry/internal/regularfile"
)

// PutBatch is Put for many blobs without an fsync per file (imports,
// rebuilds): every temp file is written and renamed into place, and the
// caller calls Sync once at the end. A killed process leaves each blob
// absent or whole (rename is atomic); after a power loss before Sync a
// file may hold garbage, which its first serve hashes and deletes, as it
// would any damaged file.
func (s *Store) PutBatch(items []Item) error {
	type placed struct{ tmp, final string }
	var (
		todo []placed
		size int64
	)
	defer func() {
		for _, p := range todo {
			os.Remove(p.tmp) // only those never renamed are still there
		}
	}()
	for _, it := range items {
		if s.Has(it.Digest) {
			continue
		}
		if sha1.Sum(it.Content) != it.Digest {
			return fmt.Errorf("%w: refusing to write %s", ErrMismatch, it.Digest.Hex())
		}
		final := s.Path(it.Digest)
		if err := os.MkdirAll(filepath.Dir(final), 0o750); err != nil {
			return err
		}
		tmp, err := os.CreateTemp(filepath.Dir(final), tempPrefix+it.Digest.Hex()+"-*")
		if err != nil {
			return err
		}
		_, err = tmp.Write(it.Content)
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		todo = append(todo, placed{tmp.Name(), final})
		if err != nil {
			return err
		}
		size += int64(len(it.Content))
	}
	if len(todo) == 0 {
		return nil
	}
	for i, p := range todo {
		if err := os.Rename(p.tmp, p.final); err != nil {
			todo = todo[i:]
			return err
		}
	}
	todo = nil
	s.added(size)
	return nil
}

// Sync flushes the file system holding the directory (syncfs(2)): what
// PutBatch wrote is durable when it returns.
func (s *Store) Sync() error {
	dir := s.dir
	f, err := os.OpenFile(dir, os.O_RDONLY|regularfile.Flags, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := unix.Syncfs(int(f.Fd())); err != nil {
		return &os.PathError{Op: "syncfs", Path: dir, Err: err}
	}
	return nil
}
