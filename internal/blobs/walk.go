package blobs

import (
	"crypto/sha1"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/regularfile"
)

// Entry is one file of the directory as Walk finds it.
type Entry struct {
	Digest protocol.Digest
	Size   int64
	// NotRegular is a blob's name that is not a regular file (a FIFO, a
	// directory…): never served, reported by a verification.
	NotRegular bool
}

// Walk calls fn for every blob name. Temp files left by a crash are
// removed on the way; other strays are left alone.
func (s *Store) Walk(fn func(Entry) error) error {
	subs, err := os.ReadDir(s.dir)
	if err != nil {
		return err
	}
	for _, sub := range subs {
		if !sub.IsDir() || len(sub.Name()) != 2 {
			continue
		}
		dir := filepath.Join(s.dir, sub.Name())
		files, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, f := range files {
			if strings.HasPrefix(f.Name(), tempPrefix) {
				os.Remove(filepath.Join(dir, f.Name()))
				continue
			}
			d, ok := parseName(f.Name())
			if !ok || d.Hex()[:2] != sub.Name() {
				continue
			}
			if !f.Type().IsRegular() {
				if err := fn(Entry{Digest: d, NotRegular: true}); err != nil {
					return err
				}
				continue
			}
			fi, err := f.Info()
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return err
			}
			if err := fn(Entry{Digest: d, Size: fi.Size()}); err != nil {
				return err
			}
		}
	}
	return nil
}

// Check re-hashes d's file whatever this process remembers: nil when it
// matches, ErrMismatch when not (the file is left for the caller).
func (s *Store) Check(d protocol.Digest) error {
	f, _, err := regularfile.Open(s.Path(d), os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha1.New()
	if _, err := io.Copy(h, f); err != nil {
		return err
	}
	if [sha1.Size]byte(h.Sum(nil)) != d {
		return ErrMismatch
	}
	return nil
}

// usage adds up the directory's files (the cap's starting point).
func (s *Store) usage() (int64, error) {
	var n int64
	err := s.Walk(func(e Entry) error { n += e.Size; return nil }) // 0 for a name that is not a file
	return n, err
}

// added counts a new file and, over the cap, evicts in the background.
func (s *Store) added(n int64) {
	if s.maxBytes <= 0 {
		return
	}
	if s.used.Add(n) > s.maxBytes && s.evicting.CompareAndSwap(false, true) {
		go func() {
			defer s.evicting.Store(false)
			s.evict()
		}()
	}
}

// evict removes files until the directory holds at most 90% of its cap.
// Names are hashes, so removing in directory order from a random starting
// subdirectory is random eviction: with uniform fetches as good as any
// policy, and it needs no bookkeeping per fetch. An evicted document is
// fetched from the database again on its next read.
func (s *Store) evict() {
	target := s.maxBytes / 10 * 9
	start := rand.IntN(256)
	for i := 0; i < 256 && s.used.Load() > target; i++ {
		dir := filepath.Join(s.dir, hex2((start+i)%256))
		files, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, f := range files {
			if s.used.Load() <= target {
				return
			}
			d, ok := parseName(f.Name())
			if !ok {
				continue
			}
			if fi, err := f.Info(); err == nil {
				s.remove(d, fi.Size())
			}
		}
	}
}

func hex2(i int) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[i>>4], digits[i&15]})
}

// Used reports the bytes the directory holds when capped (0 otherwise).
func (s *Store) Used() int64 { return s.used.Load() }

// Replace fills a new directory beside the store's with fill, then swaps
// it in for the old one, which is removed: a server reading the directory
// meanwhile sees the old files, then the new ones (paths are resolved per
// open), never a half-filled directory.
func (s *Store) Replace(fill func(*Store) error) error {
	next, err := os.MkdirTemp(filepath.Dir(s.dir), filepath.Base(s.dir)+".rebuild-")
	if err != nil {
		return err
	}
	fresh, err := Open(next, s.maxBytes)
	if err == nil {
		err = fill(fresh)
	}
	if err == nil {
		err = fresh.Sync()
	}
	if err != nil {
		os.RemoveAll(next)
		return err
	}
	old := next + ".old"
	if err := os.Rename(s.dir, old); err != nil {
		os.RemoveAll(next)
		return fmt.Errorf("blobs: moving the old directory aside: %w", err)
	}
	if err := os.Rename(next, s.dir); err != nil {
		return fmt.Errorf("blobs: the old directory is at %s: %w", old, err)
	}
	s.used.Store(fresh.used.Load())
	if err := s.Sync(); err != nil {
		return err
	}
	return os.RemoveAll(old)
}
