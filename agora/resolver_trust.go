package agora

import (
	"context"
	"fmt"
	"strings"
	"sync"
)

// maxProved bounds the digests a resolver remembers as proved (or seeded),
// so hashes a sender mints cannot grow it; past it the set starts again
// and documents are proved anew (one proof fetch each).
const maxProved = 4096

// trusted is a resolver's proof requirement: the trusted logs' policies and
// the documents proved (or seeded by the operator) in this process.
type trusted struct {
	policies []WitnessPolicy

	mu     sync.Mutex
	proved map[Digest]bool
	seeded map[Digest]bool
}

func newTrusted(policies []WitnessPolicy) (*trusted, error) {
	if len(policies) == 0 {
		return nil, nil
	}
	for _, p := range policies {
		if err := p.Check(); err != nil {
			return nil, fmt.Errorf("trust: %w", err)
		}
	}
	return &trusted{policies: policies, proved: map[Digest]bool{}, seeded: map[Digest]bool{}}, nil
}

func (t *trusted) known(d Digest) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.proved[d] || t.seeded[d]
}

func (t *trusted) prove(d Digest) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.proved) >= maxProved {
		clear(t.proved)
	}
	t.proved[d] = true
}

func (t *trusted) seed(d Digest) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.seeded[d] = true
}

// requireProof accepts doc only with a valid proof from a trusted log,
// asked of each registry in turn ({registry}/protocol/{hash}.tlog-proof);
// else ErrUnproved, saying what each registry answered.
func (r *Resolver) requireProof(ctx context.Context, d Digest, doc []byte) error {
	if r.trust.known(d) {
		return nil
	}
	var failures []string
	for i, reg := range r.registries {
		if ctx.Err() != nil {
			break
		}
		proof, err := reg.TLogProof(ctx, d)
		if err == nil {
			_, err = VerifyDocumentProof(proof, doc, r.trust.policies...)
		}
		if err != nil {
			failures = append(failures, fmt.Sprintf("configured registry %d: %s", i+1, errText(err)))
			r.log().Info("protocol proof failed", "hash", d.Hex(), "registry", RedactURL(reg.Origin()), "err", err)
			continue
		}
		r.trust.prove(d)
		return nil
	}
	if len(failures) == 0 {
		failures = append(failures, "no registry configured to ask for a proof")
	}
	return ErrUnproved.With(fmt.Sprintf("protocol %s has no valid proof from a trusted log (%s)", d.Hex(), strings.Join(failures, "; ")))
}
