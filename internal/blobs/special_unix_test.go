//go:build unix

package blobs

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// notBlocking runs f, failing the test if it has not returned after ten
// seconds (an open blocked on a FIFO never returns).
func notBlocking(t *testing.T, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("blocked on a FIFO")
		return nil
	}
}

// A FIFO under a blob's name (or a directory) is never read: the open does
// not block on it (Read, Stat and Check would otherwise wait for a
// writer for ever), it is refused as not a regular file and removed, so
// the blob counts as missing and can be written again; Walk reports it.
func TestSpecialFilesAreMissingNeverRead(t *testing.T) {
	doc := []byte("# Doc\n\nBody.\n")
	d := digestOf(doc)
	for name, read := range map[string]func(s *Store) error{
		"Read":  func(s *Store) error { _, _, err := s.Read(d); return err },
		"Stat":  func(s *Store) error { _, err := s.Stat(d); return err },
		"Check": func(s *Store) error { return s.Check(d) },
	} {
		t.Run(name, func(t *testing.T) {
			s := openStore(t, 0)
			if err := os.MkdirAll(filepath.Dir(s.Path(d)), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(s.Path(d), 0o600); err != nil {
				t.Fatal(err)
			}
			if s.Has(d) {
				t.Error("Has: a FIFO counts as the blob")
			}
			var walked []Entry
			if err := s.Walk(func(e Entry) error { walked = append(walked, e); return nil }); err != nil {
				t.Fatal(err)
			}
			if len(walked) != 1 || walked[0].Digest != d || !walked[0].NotRegular {
				t.Errorf("Walk: %+v, want the FIFO reported as not regular", walked)
			}
			err := notBlocking(t, func() error { return read(s) })
			if !errors.Is(err, ErrNotRegular) {
				t.Fatalf("%s of a FIFO: %v, want ErrNotRegular", name, err)
			}
			if name != "Check" { // Check only reports (blobs verify repairs)
				if _, err := os.Lstat(s.Path(d)); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("the FIFO was not removed: %v", err)
				}
				if err := s.Put(d, doc); err != nil {
					t.Fatal(err)
				}
				if got, err := readAll(t, s, d); err != nil || string(got) != string(doc) {
					t.Fatalf("after Put: %q, %v", got, err)
				}
			}
		})
	}
}

// Put over a FIFO (Has says missing) replaces it with the file.
func TestPutReplacesAFIFO(t *testing.T) {
	s := openStore(t, 0)
	doc := []byte("# Doc\n\nBody.\n")
	d := digestOf(doc)
	if err := os.MkdirAll(filepath.Dir(s.Path(d)), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(s.Path(d), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(d, doc); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(s.Path(d)); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("after Put over a FIFO: %v, %v", fi, err)
	}
}

// What the directory creates is its owner's only: files 0600, directories
// 0750, whatever the umask lets through.
func TestCreatedModes(t *testing.T) {
	old := syscall.Umask(0o002)
	defer syscall.Umask(old)
	dir := filepath.Join(t.TempDir(), "blobs")
	s, err := Open(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	one, two := []byte("one"), []byte("two")
	if err := s.Put(digestOf(one), one); err != nil {
		t.Fatal(err)
	}
	if err := s.PutBatch([]Item{{digestOf(two), two}}); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]os.FileMode{
		dir:                                 0o750,
		filepath.Dir(s.Path(digestOf(one))): 0o750,
		s.Path(digestOf(one)):               0o600,
		filepath.Dir(s.Path(digestOf(two))): 0o750,
		s.Path(digestOf(two)):               0o600,
	} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s: mode %04o, want %04o", path, got, want)
		}
	}
}
