// Package blobs is the registry's content-addressed blob store on disk: the
// exact bytes of every document as a file named by its SHA-1,
// DIR/<first two hex>/<hex>, so raw fetches are served from the kernel's
// page cache with sendfile. The database stays the source of truth: a
// missing or damaged file is written again from it, and a file is only
// ever written after its bytes hash to its name.
package blobs

import (
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/regularfile"
)

// ErrMismatch reports a file whose bytes do not hash to its name.
var ErrMismatch = errors.New("blob does not match its hash")

// ErrNotRegular reports a blob's name that is not a regular file (a FIFO,
// a device, a directory): it is removed, never read, and the blob is
// missing until written again from the database.
var ErrNotRegular = regularfile.ErrNotRegular

// tempPrefix starts the name of a file being written; such names never
// parse as a digest, so a temp file left by a crash is never served.
const tempPrefix = ".tmp-"

// Store is a blob directory. It is safe for concurrent use.
type Store struct {
	dir      string
	verified *verifiedSet
	// maxBytes caps the directory (0: no cap); used is the bytes held
	// (counted only when capped).
	maxBytes int64
	used     atomic.Int64
	evicting atomic.Bool
}

// Open opens (creating it if needed) the blob directory dir. maxBytes
// caps its size, evicting old files when exceeded; 0 means no cap.
func Open(dir string, maxBytes int64) (*Store, error) {
	if dir == "" {
		return nil, errors.New("blobs: no directory")
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("blobs: %w", err)
	}
	s := &Store{dir: filepath.Clean(dir), verified: newVerifiedSet(), maxBytes: maxBytes}
	if maxBytes > 0 {
		n, err := s.usage()
		if err != nil {
			return nil, err
		}
		s.used.Store(n)
	}
	return s, nil
}

// Dir is the blob directory.
func (s *Store) Dir() string { return s.dir }

// Path is the file of digest d: dir/<first two hex>/<hex>.
func (s *Store) Path(d protocol.Digest) string {
	b := make([]byte, 0, len(s.dir)+2*protocol.DigestSize+4)
	b = append(b, s.dir...)
	b = append(b, '/')
	b = hex.AppendEncode(b, d[:1])
	b = append(b, '/')
	b = hex.AppendEncode(b, d[:])
	return string(b)
}

// Read returns d's blob, read whole, once its bytes are known to hash to
// its name: they are hashed the first time this process reads this
// version of the file (a rewrite changes its stamp), and hits counts the
// reads of this version, the first included. A missing file gives
// fs.ErrNotExist; a file that fails verification is deleted and gives
// ErrMismatch; a name that is not a regular file is removed and gives
// ErrNotRegular. The work is bounded by the file's size, which Put and the
// importer bound by the document limit.
func (s *Store) Read(d protocol.Digest) (content []byte, hits uint32, err error) {
	b, st, err := readRegular(s.Path(d))
	if errors.Is(err, ErrNotRegular) {
		s.remove(d, 0)
	}
	if err != nil {
		return nil, 0, err
	}
	if hits, ok := s.verified.hit(d, st); ok {
		return b, hits, nil
	}
	if sha1.Sum(b) != d {
		// Only this file's name goes: a rewrite racing us has its own
		// identity, and a wrong remove costs one refetch.
		s.remove(d, int64(len(b)))
		return nil, 0, fmt.Errorf("%w: %s", ErrMismatch, d.Hex())
	}
	s.verified.add(d, st, int64(len(b)))
	return b, 1, nil
}

// Stat returns the size of d's verified blob: from memory when this
// process has verified a version of the file (HEAD and revalidation), else
// by reading and verifying it now.
func (s *Store) Stat(d protocol.Digest) (int64, error) {
	if n, ok := s.verified.size(d); ok {
		return n, nil
	}
	b, _, err := s.Read(d)
	return int64(len(b)), err
}

// Has reports whether d's file exists (unverified) as a regular file.
func (s *Store) Has(d protocol.Digest) bool {
	fi, err := os.Lstat(s.Path(d))
	return err == nil && fi.Mode().IsRegular()
}

// Put writes content as d's blob unless it is there already: the bytes
// must hash to d; they go to a temp file that is synced and renamed into
// place, then the directory is synced, so a crash leaves either no file or
// the whole one.
func (s *Store) Put(d protocol.Digest, content []byte) error {
	if s.Has(d) {
		return nil
	}
	if sha1.Sum(content) != d {
		return fmt.Errorf("%w: refusing to write %s", ErrMismatch, d.Hex())
	}
	dir := filepath.Dir(s.Path(d))
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, tempPrefix+d.Hex()+"-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(content)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil { // the temp file is 0600, and so is the blob
		err = os.Rename(tmp.Name(), s.Path(d))
	}
	if err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := syncDir(dir); err != nil {
		return err
	}
	s.added(int64(len(content)))
	return nil
}

// Remove deletes d's blob (withdrawal); a missing file is not an error.
func (s *Store) Remove(d protocol.Digest) error {
	fi, err := os.Lstat(s.Path(d))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return s.remove(d, fi.Size())
}

func (s *Store) remove(d protocol.Digest, size int64) error {
	s.verified.forget(d)
	err := os.Remove(s.Path(d))
	if err == nil && s.maxBytes > 0 {
		s.used.Add(-size)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

func syncDir(dir string) error {
	f, err := os.OpenFile(dir, os.O_RDONLY|regularfile.Flags, 0)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// stampOf identifies one version of a file: a rewrite (a new inode, a new
// modification time or size) needs verifying again.
func stampOf(size, mtimeNanos int64, ino uint64) uint64 {
	x := uint64(size)*0x9e3779b97f4a7c15 ^ uint64(mtimeNanos) ^ ino*0xbf58476d1ce4e5b9
	return x | 1 // 0 marks an empty slot
}

// parseName reads a blob's file name; temp files and strays do not parse.
func parseName(name string) (protocol.Digest, bool) {
	if len(name) != 2*protocol.DigestSize {
		return protocol.Digest{}, false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return protocol.Digest{}, false
		}
	}
	d, err := protocol.ParseDigest(name)
	return d, err == nil
}
