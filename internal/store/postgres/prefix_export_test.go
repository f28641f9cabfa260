package postgres

import (
	"context"

	"github.com/agora-registry/registry/internal/store"
)

// PrefixPlan is PostgreSQL's plan for the prefix lookup, one line per row
// of EXPLAIN.
func (s *Store) PrefixPlan(ctx context.Context, p store.HashPrefix) ([]string, error) {
	lo, hi := p.Range()
	rows, err := s.pool.Query(ctx, "EXPLAIN "+prefixQuery, lo[:], hi[:], store.MaxPrefixMatches)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return nil, err
		}
		plan = append(plan, line)
	}
	return plan, rows.Err()
}

// Analyze refreshes the planner's statistics now.
func (s *Store) Analyze(ctx context.Context) error {
	_, err := s.pool.Exec(ctx, "ANALYZE documents")
	return err
}
