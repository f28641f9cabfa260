package agora

import (
	"crypto/sha256"
	"fmt"

	"github.com/pjbgf/sha1cd"
)

// ErrCollisionAttack refuses bytes that carry a known SHA-1 collision attack:
// such a document could share its digest with a different, hostile one.
var ErrCollisionAttack = newError(KindInvalid, "sha1_collision",
	"the document carries a known SHA-1 collision attack and is refused")

// ErrHashMismatch is returned by Verify when a document is not the one its
// digest names (a lying or broken source).
var ErrHashMismatch = newError(KindInvalid, "hash_mismatch",
	"the document does not match the requested hash")

// Sums are the digests of one document. SHA-256 is kept beside SHA-1 so a
// future move off SHA-1 needs no re-hashing of every stored byte.
type Sums struct {
	SHA1   Digest
	SHA256 [sha256.Size]byte
}

// Hash digests a document with SHA-1 collision detection.
func Hash(doc []byte) (Sums, error) {
	sum, collision := sha1cd.Sum(doc)
	if collision {
		return Sums{}, ErrCollisionAttack
	}
	return Sums{SHA1: Digest(sum), SHA256: sha256.Sum256(doc)}, nil
}

// Verify reports whether doc hashes to want, refusing collision attacks. It
// is the check every fetched or mirrored document passes before use.
func Verify(doc []byte, want Digest) error {
	sums, err := Hash(doc)
	if err != nil {
		return err
	}
	if sums.SHA1 != want {
		return ErrHashMismatch.With(fmt.Sprintf(
			"the document hashes to %s, not the requested %s", sums.SHA1.Hex(), want.Hex()))
	}
	return nil
}
