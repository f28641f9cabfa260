package blobs

import (
	"crypto/sha1"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/protocol"
)

func digestOf(b []byte) protocol.Digest { return protocol.Digest(sha1.Sum(b)) }

func openStore(t *testing.T, maxBytes int64) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "blobs"), maxBytes)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func readAll(t *testing.T, s *Store, d protocol.Digest) ([]byte, error) {
	t.Helper()
	b, _, err := s.Read(d)
	return b, err
}

func TestPutReadRoundTrip(t *testing.T) {
	s := openStore(t, 0)
	doc := []byte("# Doc\n\nBody.\n")
	d := digestOf(doc)
	if _, _, err := s.Read(d); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Read before Put: %v, want ErrNotExist", err)
	}
	if err := s.Put(d, doc); err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(s.Dir(), d.Hex()[:2], d.Hex()); s.Path(d) != want {
		t.Fatalf("Path = %s, want %s", s.Path(d), want)
	}
	for i := 0; i < 2; i++ { // first read hashes, second trusts the verified set
		got, err := readAll(t, s, d)
		if err != nil || string(got) != string(doc) {
			t.Fatalf("read %d: %q, %v", i, got, err)
		}
	}
	if n, err := s.Stat(d); err != nil || n != int64(len(doc)) {
		t.Fatalf("Stat = %d, %v", n, err)
	}
	if err := s.Remove(d); err != nil || s.Has(d) {
		t.Fatalf("Remove: %v, still there: %v", err, s.Has(d))
	}
	if err := s.Remove(d); err != nil {
		t.Fatalf("second Remove: %v", err)
	}
}

func TestPutRefusesBytesThatDoNotMatch(t *testing.T) {
	s := openStore(t, 0)
	d := digestOf([]byte("the real one"))
	if err := s.Put(d, []byte("an impostor")); !errors.Is(err, ErrMismatch) {
		t.Fatalf("Put of wrong bytes: %v, want ErrMismatch", err)
	}
	if s.Has(d) {
		t.Fatal("a file was written for bytes that do not match")
	}
}

// A damaged file is never returned: it is deleted, whether it was damaged
// before this process verified it or rewritten afterwards.
func TestDamagedFilesAreDeletedNotServed(t *testing.T) {
	doc := []byte("# Doc\n\nA body long enough to flip a bit in.\n")
	d := digestOf(doc)
	flipped := append([]byte(nil), doc...)
	flipped[10] ^= 1
	for name, damage := range map[string]func(path string) error{
		"bit flip":  func(p string) error { return os.WriteFile(p, flipped, 0o644) },
		"truncated": func(p string) error { return os.Truncate(p, int64(len(doc)/2)) },
		"empty":     func(p string) error { return os.Truncate(p, 0) },
	} {
		for _, verifiedFirst := range []bool{false, true} {
			s := openStore(t, 0)
			if err := s.Put(d, doc); err != nil {
				t.Fatal(err)
			}
			if verifiedFirst {
				if _, err := readAll(t, s, d); err != nil {
					t.Fatal(err)
				}
				// A rewrite within the file system's timestamp
				// granularity keeps the modification time.
				time.Sleep(10 * time.Millisecond)
			}
			if err := damage(s.Path(d)); err != nil {
				t.Fatal(err)
			}
			got, err := readAll(t, s, d)
			if !errors.Is(err, ErrMismatch) {
				t.Fatalf("%s (verified first %v): read %q, %v; want ErrMismatch", name, verifiedFirst, got, err)
			}
			if s.Has(d) {
				t.Fatalf("%s: the damaged file is still there", name)
			}
			if _, err := s.Stat(d); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("%s: Stat after the damage: %v", name, err)
			}
		}
	}
}

func TestStatVerifiesAnUnverifiedFile(t *testing.T) {
	s := openStore(t, 0)
	doc := []byte("# Stat\n")
	d := digestOf(doc)
	if err := s.Put(d, doc); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.Path(d), []byte("# Stax\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Stat(d); !errors.Is(err, ErrMismatch) {
		t.Fatalf("Stat of a damaged unverified file: %v, want ErrMismatch", err)
	}
}

// A temp file left by a crash never parses as a blob, and Walk removes it.
func TestWalkSkipsAndCleansTempFiles(t *testing.T) {
	s := openStore(t, 0)
	doc := []byte("# Walk\n")
	d := digestOf(doc)
	if err := s.Put(d, doc); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(s.Dir(), d.Hex()[:2], tempPrefix+d.Hex()+"-123")
	if err := os.WriteFile(tmp, []byte("half"), 0o644); err != nil {
		t.Fatal(err)
	}
	stray := filepath.Join(s.Dir(), d.Hex()[:2], "README")
	if err := os.WriteFile(stray, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	var seen []Entry
	if err := s.Walk(func(e Entry) error { seen = append(seen, e); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 || seen[0].Digest != d || seen[0].Size != int64(len(doc)) {
		t.Fatalf("Walk saw %v", seen)
	}
	if _, err := os.Stat(tmp); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("temp file left: %v", err)
	}
	if _, err := os.Stat(stray); err != nil {
		t.Fatalf("a stray file was removed: %v", err)
	}
	if err := os.WriteFile(s.Path(d), []byte("# Wal!\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.Check(d); !errors.Is(err, ErrMismatch) {
		t.Fatalf("Check of a damaged file: %v", err)
	}
}

func TestCapEvicts(t *testing.T) {
	const capBytes = 10 << 10
	s := openStore(t, capBytes)
	for i := 0; i < 40; i++ {
		doc := make([]byte, 1<<10)
		doc[0], doc[1] = byte(i), 'x'
		d := digestOf(doc)
		if err := s.Put(d, doc); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for s.evicting.Load() || s.Used() > capBytes {
		if time.Now().After(deadline) {
			t.Fatalf("used %d > cap %d", s.Used(), capBytes)
		}
		time.Sleep(time.Millisecond)
	}
	var n int64
	if err := s.Walk(func(e Entry) error { n += e.Size; return nil }); err != nil {
		t.Fatal(err)
	}
	if n > capBytes || n != s.Used() {
		t.Fatalf("directory holds %d bytes, counted %d, cap %d", n, s.Used(), capBytes)
	}
	reopened, err := Open(s.Dir(), capBytes)
	if err != nil || reopened.Used() != n {
		t.Fatalf("reopened: used %d, %v; want %d", reopened.Used(), err, n)
	}
}

func TestWriter(t *testing.T) {
	s := openStore(t, 0)
	a, b, c := []byte("# A\n"), []byte("# B\n"), []byte("# C\n")
	skipped := digestOf(b)
	w := NewWriter(s, 8, func(d protocol.Digest) bool { return d == skipped }, nil)
	if !w.Queue(digestOf(a), a) || !w.Queue(digestOf(b), b) {
		t.Fatal("Queue refused within its bound")
	}
	if w.Queue(digestOf(c), []byte("# C is too long\n")) {
		t.Fatal("Queue took more than its bound")
	}
	w.Wait()
	if !s.Has(digestOf(a)) || s.Has(skipped) || s.Has(digestOf(c)) {
		t.Fatalf("after Wait: a %v, skipped b %v, dropped c %v", s.Has(digestOf(a)), s.Has(skipped), s.Has(digestOf(c)))
	}
	if !w.Queue(digestOf(c), c) {
		t.Fatal("Queue refused after draining")
	}
	w.Wait()
	if !s.Has(digestOf(c)) {
		t.Fatal("c not written")
	}
}

func TestPutBatch(t *testing.T) {
	s := openStore(t, 0)
	a, b := []byte("# A\n"), []byte("# B\n")
	if err := s.PutBatch([]Item{{digestOf(a), a}, {digestOf(b), b}, {digestOf(a), a}}); err != nil {
		t.Fatal(err)
	}
	for _, doc := range [][]byte{a, b} {
		if got, err := readAll(t, s, digestOf(doc)); err != nil || string(got) != string(doc) {
			t.Fatalf("after PutBatch: %q, %v", got, err)
		}
	}
	c := []byte("# C\n")
	err := s.PutBatch([]Item{{digestOf(c), c}, {digestOf([]byte("other")), []byte("# D\n")}})
	if !errors.Is(err, ErrMismatch) {
		t.Fatalf("PutBatch with a mismatching item: %v", err)
	}
	var temps int
	_ = filepath.WalkDir(s.Dir(), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name()[0] == '.' {
			temps++
		}
		return nil
	})
	if s.Has(digestOf(c)) || temps != 0 {
		t.Fatalf("a refused batch left files: c %v, temps %d", s.Has(digestOf(c)), temps)
	}
}

// Read counts the reads of one file version and hashes a rewritten file
// again, even of the same size.
func TestReadCountsAndRehashesARewrite(t *testing.T) {
	s := openStore(t, 0)
	doc := []byte("# Small\n\nBody.\n")
	d := digestOf(doc)
	if err := s.Put(d, doc); err != nil {
		t.Fatal(err)
	}
	for want := uint32(1); want <= 2; want++ {
		b, hits, err := s.Read(d)
		if err != nil || string(b) != string(doc) || hits != want {
			t.Fatalf("Read: %q hits %d, %v", b, hits, err)
		}
	}
	time.Sleep(10 * time.Millisecond)
	if err := os.WriteFile(s.Path(d), []byte("# Smalx\n\nBody.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Read(d); !errors.Is(err, ErrMismatch) || s.Has(d) {
		t.Fatalf("Read of a rewritten file: %v (still there: %v)", err, s.Has(d))
	}
}
