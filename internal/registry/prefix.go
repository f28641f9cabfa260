package registry

import (
	"context"

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
