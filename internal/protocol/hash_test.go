package protocol

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"errors"
	"os"
	"testing"

	"github.com/agora-registry/registry/internal/apperr"
)

func TestHashMatchesEveryVector(t *testing.T) {
	for _, v := range loadHashVectors(t) {
		sums, err := Hash([]byte(v.Document))
		if err != nil {
			t.Fatalf("Hash(%q): %v", v.Document, err)
		}
		if sums.SHA1.Hex() != v.Hex || sums.SHA1.Base64() != v.Base64 {
			t.Errorf("Hash(%q) = %s / %s, want %s / %s", v.Document, sums.SHA1.Hex(), sums.SHA1.Base64(), v.Hex, v.Base64)
		}
		if sums.SHA256 != sha256.Sum256([]byte(v.Document)) {
			t.Errorf("Hash(%q): wrong SHA-256", v.Document)
		}
		if err := Verify([]byte(v.Document), MustParseDigest(v.Base64)); err != nil {
			t.Errorf("Verify(%q): %v", v.Document, err)
		}
	}
}

// The testdata files are the first 320 bytes of the two SHAttered PDFs
// (shattered.io): different bytes, one plain SHA-1.
func TestHashRefusesTheSHAtteredCollision(t *testing.T) {
	one := readTestdata(t, "shattered-1-prefix.bin")
	two := readTestdata(t, "shattered-2-prefix.bin")
	if bytes.Equal(one, two) {
		t.Fatal("the two prefixes are identical: the testdata is wrong")
	}
	if sha1.Sum(one) != sha1.Sum(two) {
		t.Fatal("crypto/sha1 gives the prefixes different digests: the testdata is wrong")
	}
	for name, doc := range map[string][]byte{"shattered-1": one, "shattered-2": two} {
		if _, err := Hash(doc); !errors.Is(err, ErrCollisionAttack) {
			t.Errorf("Hash(%s) = %v, want ErrCollisionAttack", name, err)
		}
		err := Verify(doc, Digest(sha1.Sum(doc)))
		if !errors.Is(err, ErrCollisionAttack) {
			t.Errorf("Verify(%s, its plain SHA-1) = %v, want ErrCollisionAttack", name, err)
		}
	}
}

// The detector flags the collision block, not PDFs or these bytes in
// general: the shared header before the block hashes normally.
func TestHashAcceptsTheSHAtteredHeaderWithoutItsCollisionBlock(t *testing.T) {
	header := readTestdata(t, "shattered-2-prefix.bin")[:64]
	sums, err := Hash(header)
	if err != nil {
		t.Fatalf("the first 64 bytes (before the collision block) were refused: %v", err)
	}
	if sums.SHA1 != Digest(sha1.Sum(header)) {
		t.Fatal("Hash and crypto/sha1 disagree on ordinary bytes")
	}
}

func TestVerifyRefusesAnotherDocument(t *testing.T) {
	abc := MustParseDigest("a9993e364706816aba3e25717850c26c9cd0d89d")
	err := Verify([]byte("abd"), abc)
	if !errors.Is(err, ErrHashMismatch) {
		t.Fatalf("Verify = %v, want ErrHashMismatch", err)
	}
	if e := apperr.As(err); e == nil || e.Code != "hash_mismatch" {
		t.Fatalf("error %#v lacks code hash_mismatch", err)
	}
	if want := "not the requested a9993e364706816aba3e25717850c26c9cd0d89d"; !bytes.Contains([]byte(err.Error()), []byte(want)) {
		t.Fatalf("message %q does not name the requested hash", err)
	}
}

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
