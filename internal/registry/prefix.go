package registry

import (
	"context"
	"fmt"
	"strings"

	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// PrefixMatches are the entries whose hash starts with a prefix. More is
// set when there are more than Matches holds.
type PrefixMatches struct {
	Matches []store.Resolution
	More    bool
}

// ByPrefix finds the entries whose hex hash starts with p, at most
// store.MaxPrefixMatches-1 of them (one more is read to tell whether
// others exist). The upstream is not asked: a prefix names no document.
func (s *Service) ByPrefix(ctx context.Context, p store.HashPrefix) (PrefixMatches, error) {
	res, err := s.store.ByPrefix(ctx, p, store.MaxPrefixMatches)
	if err != nil {
		return PrefixMatches{}, err
	}
	m := PrefixMatches{Matches: res}
	if len(res) == store.MaxPrefixMatches {
		m.Matches, m.More = res[:store.MaxPrefixMatches-1], true
	}
	return m, nil
}

// ErrAmbiguousPrefix refuses a hash prefix that names several documents.
var ErrAmbiguousPrefix = apperr.New(apperr.Conflict, "ambiguous_hash_prefix", "several protocols' hashes start with this prefix: give more digits")

// UniquePrefix is the one document whose hash starts with p: what a
// person copies from a listing's short hash. Several are refused with the
// candidates named, so a prefix never silently picks one of them.
func (s *Service) UniquePrefix(ctx context.Context, p store.HashPrefix) (protocol.Digest, error) {
	m, err := s.ByPrefix(ctx, p)
	switch {
	case err != nil:
		return protocol.Digest{}, err
	case len(m.Matches) == 0:
		return protocol.Digest{}, store.ErrNotFound.With(fmt.Sprintf("no protocol's hash starts with %s", p))
	case len(m.Matches) == 1:
		return m.Matches[0].Digest, nil
	}
	names := make([]string, 0, len(m.Matches))
	for _, r := range m.Matches {
		names = append(names, fmt.Sprintf("%s (%s)", r.Digest.Hex(), protocol.CleanTitle(r.Title)))
	}
	more := ""
	if m.More {
		more = ", and more"
	}
	return protocol.Digest{}, ErrAmbiguousPrefix.With(fmt.Sprintf("%d protocols' hashes start with %s: %s%s; give more digits",
		len(m.Matches), p, strings.Join(names, ", "), more))
}
