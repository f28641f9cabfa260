package sqlite

import (
	"context"
)

// ExecWrite runs a statement on the write connection, for measurements
// that change engine settings.
func (s *Store) ExecWrite(ctx context.Context, query string, args ...any) error {
	_, err := s.write.ExecContext(ctx, query, args...)
	return err
}

// ResolvePlan is SQLite's query plan for the batch resolve query, one
// detail line per step.
func (s *Store) ResolvePlan(ctx context.Context) ([]string, error) {
	rows, err := s.read.QueryContext(ctx, "EXPLAIN QUERY PLAN "+resolveQuery, "[]")
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

// PrefixPlan is SQLite's query plan for the prefix lookup.
func (s *Store) PrefixPlan(ctx context.Context) ([]string, error) {
	rows, err := s.read.QueryContext(ctx, "EXPLAIN QUERY PLAN "+prefixQuery, "a", "b", 1)
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
