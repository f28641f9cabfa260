// Package protocol holds what registry and agent agree on about Agora
// protocol documents: their identity (a SHA-1 digest with two spellings),
// how they are hashed safely, what a valid document is, and the metadata
// read from its front matter. Identity, hashing and validation are the
// public agora module's (one copy, shared with agents built on it); this
// file gives them their registry-side names.
package protocol

import "github.com/agora-registry/registry/agora"

// DigestSize is the length of a SHA-1 digest in bytes.
const DigestSize = agora.DigestSize

// Digest identifies a protocol document: the SHA-1 of its exact bytes.
type Digest = agora.Digest

// Sums are the digests of one document (SHA-1 and SHA-256).
type Sums = agora.Sums

// Identity errors.
var (
	ErrMalformedDigest = agora.ErrMalformedDigest
	ErrCollisionAttack = agora.ErrCollisionAttack
	ErrHashMismatch    = agora.ErrHashMismatch
)

// ParseDigest reads either spelling of a digest (agora.ParseDigest).
func ParseDigest(s string) (Digest, error) { return agora.ParseDigest(s) }

// MustParseDigest is ParseDigest for constants in tests and examples.
func MustParseDigest(s string) Digest { return agora.MustParseDigest(s) }

// Hash digests a document with SHA-1 collision detection.
func Hash(doc []byte) (Sums, error) { return agora.Hash(doc) }

// Verify reports whether doc hashes to want, refusing collision attacks.
func Verify(doc []byte, want Digest) error { return agora.Verify(doc, want) }
