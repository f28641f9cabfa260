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

// InOrder answers a batch in the order asked (duplicates included) from the
// entries an engine found.
func InOrder(ds []protocol.Digest, found map[protocol.Digest]Entry) []Resolution {
	out := make([]Resolution, len(ds))
	for i, d := range ds {
		e, ok := found[d]
		out[i] = Resolution{Digest: d, Found: ok, Entry: e}
	}
	return out
}
