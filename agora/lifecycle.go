package agora

import (
	"context"
	"unicode/utf8"
)

// Deprecation is a registry's word that a document is deprecated: still
// served and still valid, but its publisher says to use something else.
type Deprecation struct {
	Message string
	// Replacement is the document its publisher names instead; nil when
	// none was named (or the registry named no valid hash).
	Replacement *Digest
	Registry    string // the registry's origin, which said so
}

// maxDeprecationMessage caps the message kept from a registry's answer
// (registries store at most 500 characters; a hostile one may send more),
// so logs and notes stay one line's worth.
const maxDeprecationMessage = 500

// deprecation reads a resolve answer's lifecycle: nil unless deprecated.
func (r Resolution) deprecation(registry string) *Deprecation {
	if !r.Found || r.Withdrawn || r.Status != "deprecated" {
		return nil
	}
	dep := &Deprecation{Message: truncateRunes(r.Message, maxDeprecationMessage), Registry: registry}
	if d, err := ParseDigest(r.Replacement); err == nil {
		dep.Replacement = &d
	}
	return dep
}

func truncateRunes(s string, n int) string {
	if !utf8.ValidString(s) {
		s = string([]rune(s)) // invalid bytes become U+FFFD
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// lifecycleBatch is how many hashes CheckLifecycle asks a registry about
// in one request (registries answer up to 1000).
const lifecycleBatch = 100

// CheckLifecycle asks the registries, in order, about the candidates: the
// first registry that finds a candidate sets its Deprecation (and its Title
// when it has none). One resolve request per registry per 100 candidates;
// a registry that fails is skipped.
func CheckLifecycle(ctx context.Context, regs []*Registry, cs []Candidate) []Candidate {
	out := append([]Candidate(nil), cs...)
	known := make([]bool, len(out))
	for _, reg := range regs {
		var ask []int // indexes of candidates no registry has found yet
		for i := range out {
			if !known[i] {
				ask = append(ask, i)
			}
		}
		for start := 0; start < len(ask); start += lifecycleBatch {
			part := ask[start:min(start+lifecycleBatch, len(ask))]
			ds := make([]Digest, len(part))
			for j, i := range part {
				ds[j] = out[i].Digest
			}
			res, err := reg.Resolve(ctx, ds)
			if err != nil || len(res) != len(part) {
				break
			}
			for j, i := range part {
				if !res[j].Found {
					continue
				}
				known[i] = true
				out[i].Deprecation = res[j].deprecation(reg.Origin())
				if out[i].Title == "" {
					out[i].Title = res[j].Title
				}
			}
		}
	}
	return out
}

// Substitution is a deprecated candidate replaced by the document its
// publisher names instead.
type Substitution struct {
	Deprecated  Digest
	Replacement Digest
	Message     string
}

// PreferReplacements replaces each deprecated candidate whose replacement
// the target lists (and does not mark unsupported) by that replacement, in
// its place and with its Implemented flag: the sender meant that protocol,
// and its publisher says the replacement supersedes it. When the
// replacement is among the candidates already, the deprecated one is
// dropped. A replacement the target does not list is not used (the target
// may speak only the old one). One step only: the replacement's own
// lifecycle is not followed.
func PreferReplacements(wk WellKnownInfo, cs []Candidate) ([]Candidate, []Substitution) {
	out := make([]Candidate, 0, len(cs))
	present := map[Digest]bool{}
	for _, c := range cs {
		present[c.Digest] = true
	}
	var subs []Substitution
	for _, c := range cs {
		dep := c.Deprecation
		if dep == nil || dep.Replacement == nil {
			out = append(out, c)
			continue
		}
		r := *dep.Replacement
		if _, listed := wk.Supported[r]; !listed || wk.Unsupported[r] {
			out = append(out, c)
			continue
		}
		subs = append(subs, Substitution{Deprecated: c.Digest, Replacement: r, Message: dep.Message})
		if !present[r] {
			present[r] = true
			out = append(out, Candidate{Digest: r, Implemented: c.Implemented})
		}
	}
	return out, subs
}
