package sqlite

import (
	"context"
)

// ExecWrite runs a statement on the write connection, for tests that
// change engine settings.
func (s *Store) ExecWrite(ctx context.Context, query string, args ...any) error {
	_, err := s.write.ExecContext(ctx, query, args...)
	return err
}

// queryPlan is SQLite's query plan for query, one detail line per step.
func (s *Store) queryPlan(ctx context.Context, query string, args ...any) ([]string, error) {
	rows, err := s.read.QueryContext(ctx, "EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			return nil, err
		}
		plan = append(plan, detail)
	}
	return plan, rows.Err()
}

// AgentCapsPlan is the query plan of a registration's cap counts.
func (s *Store) AgentCapsPlan(ctx context.Context) ([]string, error) {
	return s.queryPlan(ctx, agentCapsQuery, "x", 0, "x")
}

// ResolvePlan is the query plan of the batch resolve query.
func (s *Store) ResolvePlan(ctx context.Context) ([]string, error) {
	return s.queryPlan(ctx, resolveQuery, "[]")
}

// PrefixPlan is the query plan of the prefix lookup.
func (s *Store) PrefixPlan(ctx context.Context) ([]string, error) {
	return s.queryPlan(ctx, prefixQuery, "a", "b", 1)
}

// CatalogPlan is the query plan of a latest-only catalog window.
func (s *Store) CatalogPlan(ctx context.Context) ([]string, error) {
	return s.queryPlan(ctx, catalogWindowSQL, true, "", int64(1<<62), afterEveryHex, 50)
}

// LineagePlan is the query plan of a lineage lookup.
func (s *Store) LineagePlan(ctx context.Context) ([]string, error) {
	return s.queryPlan(ctx, lineageSQL, afterEveryHex, 10)
}
