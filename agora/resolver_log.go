package agora

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
)

// ErrUnproved refuses a document a registry with a pinned log key served
// without a valid inclusion proof in that log (wrong key, no record, a
// record of other bytes, tampered tiles, a forked log).
var ErrUnproved = newError(KindInvalid, "protocol_unproved",
	"a registry whose log key is pinned served the document without a valid proof that its log includes it")

// pinnedLog is one registry's log as the resolver checks it: every
// document from the registry is proved included, and every checkpoint seen
// is proved consistent with the largest one seen before, so the registry
// cannot show this agent two different histories.
type pinnedLog struct {
	v *LogVerifier

	mu   sync.Mutex
	seen *LogCheckpoint // the largest verified checkpoint
}

// pinLogs builds the verifiers of o.LogKeys, one per registry; a key for a
// URL that is not one of the registries is refused (a typo would
// otherwise leave the registry unchecked).
func pinLogs(keys map[string]string, regs []*Registry) (map[*Registry]*pinnedLog, error) {
	out := map[*Registry]*pinnedLog{}
	for base, vkey := range keys {
		u, err := parseRegistryBase(base)
		if err != nil {
			return nil, err
		}
		var reg *Registry
		for _, r := range regs {
			if r.base == strings.TrimRight(u.String(), "/") {
				reg = r
			}
		}
		if reg == nil {
			return nil, ErrRegistryURL.With(fmt.Sprintf("a log key is pinned for %s, which is not one of the registries", RedactURL(base)))
		}
		v, err := NewLogVerifier(reg, vkey)
		if err != nil {
			return nil, fmt.Errorf("log key for %s: %w", RedactURL(base), err)
		}
		out[reg] = &pinnedLog{v: v}
	}
	return out, nil
}

// prove checks that the registry's log includes doc's publish record,
// with its SHA-256 and size, and that the lookup's checkpoint extends (or
// is extended by) every checkpoint seen before. Any failure is ErrUnproved,
// except a log that could not be read (ErrLogUnreadable).
func (p *pinnedLog) prove(ctx context.Context, d Digest, doc []byte) error {
	proof, err := p.v.ProveDocument(ctx, d, doc)
	if err != nil {
		return unproved(err)
	}
	cp := proof.Checkpoint
	p.mu.Lock()
	seen := p.seen
	p.mu.Unlock()
	if seen != nil {
		if err := p.v.Consistent(ctx, *seen, cp); err != nil {
			return unproved(err)
		}
	}
	p.mu.Lock()
	if p.seen == nil || cp.N > p.seen.N {
		p.seen = &cp
	}
	p.mu.Unlock()
	return nil
}

// unproved is ErrUnproved saying why, and keeping the cause for logs. A
// log that could not be read (a 503, a timeout) proved nothing either way:
// that stays ErrLogUnreadable, so the document is refused as unavailable
// now, not as unprovable.
func unproved(err error) error {
	if errors.Is(err, ErrLogUnreadable) {
		return err
	}
	msg := ErrUnproved.Message
	if e := asError(err); e != nil {
		msg += ": " + e.Message
	}
	return wrapError(ErrUnproved.Kind, ErrUnproved.Code, msg, err)
}
