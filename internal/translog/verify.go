package translog

import (
	"github.com/agora-registry/registry/agora"
)

// The client side of the log is the public agent module's (agora), so the
// registry's `verify`, its followers and agents check logs with one
// implementation.

// Errors of verification.
var (
	ErrFork      = agora.ErrLogFork
	ErrNotProved = agora.ErrLogNotProved
)

// Source is a registry's log as a client reads it (over HTTP); nothing it
// returns is trusted.
type Source = agora.LogSource

// Verifier checks a registry's log against its verifier key.
type Verifier = agora.LogVerifier

// Proved is a document's publish record, proved included in a tree.
type Proved = agora.LogProof

// NewVerifier reads a note verifier key (origin+hash+base64).
func NewVerifier(src Source, vkey string) (*Verifier, error) { return agora.NewLogVerifier(src, vkey) }
