package agora

import (
	"context"
	"errors"
	"fmt"
	"net/http"
)

// MatchCandidates asks each registry's match (POST /api/v1/match) for the
// task and returns up to limit documents, fetched and verified, as
// candidates we do not implement (for JudgeCandidates): each registry's
// ranking in turn, registries in order, a hash found twice kept once. A
// registry without match (HTTP 404 or 405: an older one) is searched for
// the description instead. A registry that fails does not stop the others;
// the failures come back joined beside what was found.
func MatchCandidates(ctx context.Context, regs []*Registry, task TaskSchema, limit int) ([]Candidate, error) {
	if limit <= 0 {
		limit = DefaultMaxSuitabilityChecks
	}
	var out []Candidate
	var errs []error
	seen := map[Digest]bool{}
	for _, reg := range regs {
		if len(out) >= limit {
			break
		}
		found, err := registryMatches(ctx, reg, task, limit)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", reg.Origin(), err))
		}
		for _, c := range found {
			if len(out) < limit && !seen[c.Digest] {
				seen[c.Digest] = true
				out = append(out, c)
			}
		}
	}
	return out, errors.Join(errs...)
}

func registryMatches(ctx context.Context, reg *Registry, task TaskSchema, limit int) ([]Candidate, error) {
	res, err := reg.Match(ctx, MatchTask(task, limit))
	var re *RegistryError
	if errors.As(err, &re) && (re.Status == http.StatusNotFound || re.Status == http.StatusMethodNotAllowed) && task.Description != "" {
		return RegistryCandidates(ctx, reg, task.Description, limit)
	}
	if err != nil {
		return nil, err
	}
	ps := make([]Protocol, len(res.Items))
	for i, it := range res.Items {
		ps[i] = it.Protocol
	}
	return fetchCandidates(ctx, reg, ps, limit)
}
