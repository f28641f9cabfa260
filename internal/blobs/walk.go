package blobs

import (
	"crypto/sha1"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/agora-registry/registry/internal/protocol"
)

// Entry is one file of the directory as Walk finds it.
type Entry struct {
	Digest protocol.Digest
	Size   int64
}

// Walk calls fn for every blob file. Temp files left by a crash are
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
			if !ok || !f.Type().IsRegular() || d.Hex()[:2] != sub.Name() {
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

// Verify re-hashes d's file whatever this process remembers, removing it
// when it does not match (ErrMismatch).
func (s *Store) Verify(d protocol.Digest) error {
	f, err := os.Open(s.Path(d))
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha1.New()
	if _, err := io.Copy(h, f); err != nil {
		return err
	}
	if [sha1.Size]byte(h.Sum(nil)) != d {
		fi, _ := f.Stat()
		var size int64
		if fi != nil {
			size = fi.Size()
		}
		s.remove(d, size)
		return ErrMismatch
	}
	return nil
}

// usage adds up the directory's files (the cap's starting point).
func (s *Store) usage() (int64, error) {
	var n int64
	err := s.Walk(func(e Entry) error { n += e.Size; return nil })
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
