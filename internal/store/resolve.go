package store

import (
	"fmt"

	"github.com/agora-registry/registry/internal/protocol"
)

// CheckResolveSize refuses a batch larger than MaxResolve, with the same
// message on every engine.
func CheckResolveSize(n int) error {
	if n > MaxResolve {
		return ErrInvalid.With(fmt.Sprintf("at most %d hashes can be resolved at once; %d were asked", MaxResolve, n))
	}
	return nil
}

// Unresolved is the answer to a batch before any row is read: every digest
// in the order asked, none found. An engine then marks the rows it finds
// with MarkFound.
func Unresolved(ds []protocol.Digest) []Resolution {
	out := make([]Resolution, len(ds))
	for i, d := range ds {
		out[i].Digest = d
	}
	return out
}

// MarkFound records a row an engine found for the digest at position i of
// the batch (the engines' queries return positions, so no map from digest
// to answer is built). A position outside the batch is the engine's bug,
// reported rather than a panic.
func MarkFound(out []Resolution, i int64, title string, withdrawn bool) error {
	if i < 0 || i >= int64(len(out)) {
		return fmt.Errorf("store: resolve row for position %d of a batch of %d", i, len(out))
	}
	out[i].Found, out[i].Title, out[i].Withdrawn = true, title, withdrawn
	return nil
}
