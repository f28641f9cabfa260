package translog

import (
	"context"
	"errors"
	"fmt"

	"github.com/agora-registry/registry/internal/protocol"
)

// Audit is one run of `registry verify`: the checkpoint it ended on, the
// one remembered before (nil on a first run), and each hash's outcome.
type Audit struct {
	Checkpoint Checkpoint
	Previous   *Checkpoint
	Results    []AuditResult
	// State is what to remember for the next run.
	State State
}

// AuditResult is one hash's outcome: proved, or why not.
type AuditResult struct {
	Digest protocol.Digest
	Proved Proved
	Err    error
}

// RunAudit verifies the latest checkpoint, its consistency with the one
// remembered in st, and each hash's inclusion; a fork with any checkpoint
// seen is ErrFork and ends the audit. st.VerifierKey must be set.
func RunAudit(ctx context.Context, src Source, st State, hashes []protocol.Digest) (Audit, error) {
	v, err := NewVerifier(src, st.VerifierKey)
	if err != nil {
		return Audit{}, err
	}
	latest, signed, err := v.Latest(ctx)
	if err != nil {
		return Audit{}, err
	}
	a := Audit{Checkpoint: latest}
	if st.Checkpoint != "" {
		prev, err := v.Open([]byte(st.Checkpoint))
		if err != nil {
			return Audit{}, fmt.Errorf("the remembered checkpoint does not verify with this key (was the key changed?): %w", err)
		}
		a.Previous = &prev
		if err := v.Consistent(ctx, prev, latest); err != nil {
			return a, err
		}
		if prev.N > latest.N { // a lagging replica: keep the larger tree
			a.Checkpoint, signed = prev, []byte(st.Checkpoint)
		}
	}
	for _, d := range hashes {
		p, err := v.Prove(ctx, d)
		if err == nil && p.Checkpoint != a.Checkpoint {
			if err = v.Consistent(ctx, p.Checkpoint, a.Checkpoint); err == nil && p.Checkpoint.N > a.Checkpoint.N {
				a.Checkpoint, signed = p.Checkpoint, p.Signed
			}
		}
		if errors.Is(err, ErrFork) {
			return a, err
		}
		a.Results = append(a.Results, AuditResult{Digest: d, Proved: p, Err: err})
	}
	a.State = State{VerifierKey: st.VerifierKey, Checkpoint: string(signed)}
	return a, nil
}
