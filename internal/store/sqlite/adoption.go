package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// dayNumber is a UTC day as days since 1970-01-01 (the schema's day).
func dayNumber(t time.Time) int64 { return store.Day(t).Unix() / 86400 }

func fromDayNumber(n int64) time.Time { return time.Unix(n*86400, 0).UTC() }

// AddAdoption adds a batch to one day's counts and rescores those hashes,
// in one transaction. One single-row statement per count: a multi-row
// statement makes SQLite keep a statement journal of every page it
// touches, which costs more than the executions it saves.
func (s *Store) AddAdoption(ctx context.Context, day time.Time, deltas []store.AdoptionDelta) error {
	if len(deltas) > store.MaxAdoptionBatch {
		return store.ErrInvalid.With("too many adoption deltas in one batch")
	}
	if len(deltas) == 0 {
		return nil
	}
	dn, since := dayNumber(day), dayNumber(store.WindowStart(day))
	return s.inWriteTx(ctx, func(tx *sql.Tx) error {
		add, err := tx.PrepareContext(ctx, `INSERT INTO adoption_daily (hex, day, fetches, resolutions) VALUES (?, ?, ?, ?)
			ON CONFLICT (hex, day) DO UPDATE SET fetches = fetches + excluded.fetches, resolutions = resolutions + excluded.resolutions`)
		if err != nil {
			return err
		}
		defer add.Close()
		// A score of the same window grows by the counts; one of an earlier
		// window is summed again (a hash without a score has no counts in
		// this window: RefreshAdoption deletes zero scores).
		score, err := tx.PrepareContext(ctx, `INSERT INTO adoption_scores (hex, score, since) VALUES (?1, ?2, ?3)
			ON CONFLICT (hex) DO UPDATE SET score = CASE WHEN since = excluded.since THEN score + excluded.score
				ELSE (SELECT coalesce(sum(fetches + resolutions), 0) FROM adoption_daily WHERE hex = excluded.hex AND day >= excluded.since) END,
				since = excluded.since`)
		if err != nil {
			return err
		}
		defer score.Close()
		// The rows are written without a cancellable context (the driver
		// starts a goroutine per call that has one); the batch is bounded.
		rowCtx := context.WithoutCancel(ctx)
		for _, d := range deltas {
			h := d.Digest.Hex()
			if _, err := add.ExecContext(rowCtx, h, dn, d.Fetches, d.Resolutions); err != nil {
				return err
			}
			if _, err := score.ExecContext(rowCtx, h, d.Fetches+d.Resolutions, since); err != nil {
				return err
			}
		}
		return nil
	})
}

// AdoptionDays returns d's days with counts from..through.
func (s *Store) AdoptionDays(ctx context.Context, d protocol.Digest, from, through time.Time) ([]store.AdoptionDay, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT day, fetches, resolutions FROM adoption_daily
		WHERE hex = ? AND day BETWEEN ? AND ? ORDER BY day`, d.Hex(), dayNumber(from), dayNumber(through))
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	var out []store.AdoptionDay
	for rows.Next() {
		var (
			a  store.AdoptionDay
			dn int64
		)
		if err := rows.Scan(&dn, &a.Fetches, &a.Resolutions); err != nil {
			return nil, mapErr(err)
		}
		a.Day = fromDayNumber(dn)
		out = append(out, a)
	}
	return out, mapErr(rows.Err())
}

// AdoptionTotals sums each digest's counts from since on.
func (s *Store) AdoptionTotals(ctx context.Context, ds []protocol.Digest, since time.Time) (map[protocol.Digest]store.AdoptionCounts, error) {
	if len(ds) > store.MaxResolve {
		return nil, store.ErrInvalid.With("too many digests")
	}
	out := make(map[protocol.Digest]store.AdoptionCounts, len(ds))
	if len(ds) == 0 {
		return out, nil
	}
	hexes := make([]string, len(ds))
	for i, d := range ds {
		hexes[i] = d.Hex()
	}
	rows, err := s.read.QueryContext(ctx, `SELECT hex, sum(fetches), sum(resolutions) FROM adoption_daily
		WHERE hex IN (SELECT value FROM json_each(?)) AND day >= ? GROUP BY hex`, jsonText(hexes), dayNumber(since))
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			hex string
			c   store.AdoptionCounts
		)
		if err := rows.Scan(&hex, &c.Fetches, &c.Resolutions); err != nil {
			return nil, mapErr(err)
		}
		d, err := protocol.ParseDigest(hex)
		if err != nil {
			return nil, fmt.Errorf("corrupt adoption hash %q", hex)
		}
		out[d] = c
	}
	return out, mapErr(rows.Err())
}

// RefreshAdoption rescores hashes whose window moved on and drops old days.
func (s *Store) RefreshAdoption(ctx context.Context, today time.Time) error {
	since := dayNumber(store.WindowStart(today))
	return s.inWriteTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE adoption_scores SET since = ?1, score = coalesce((SELECT sum(fetches + resolutions)
			FROM adoption_daily a WHERE a.hex = adoption_scores.hex AND a.day >= ?1), 0) WHERE since < ?1`, since); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM adoption_scores WHERE score = 0`); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM adoption_daily WHERE day < ?`, dayNumber(today)-store.AdoptionRetentionDays)
		return err
	})
}

// Popular lists scored entries by score, then the rest by hex.
func (s *Store) Popular(ctx context.Context, q store.Query) (store.Page, error) {
	q, err := q.Normalize()
	if err != nil {
		return store.Page{}, err
	}
	if q.Sort != store.SortPopular {
		return store.Page{}, store.ErrInvalid.With("Popular takes sort=popular")
	}
	cur, hasCursor, err := q.DecodeCursor()
	if err != nil {
		return store.Page{}, err
	}
	tagFilter, tagArgs := "", []any{}
	for _, tag := range q.Tags {
		tagFilter += " AND d.id IN (SELECT doc_id FROM document_tags WHERE tag = ?)"
		tagArgs = append(tagArgs, tag)
	}
	var (
		entries []store.Entry
		scores  []int64
	)
	read := func(query string, args ...any) error {
		rows, err := s.read.QueryContext(ctx, query, args...)
		if err != nil {
			return mapErr(err)
		}
		defer rows.Close()
		for rows.Next() {
			var score sql.NullInt64
			e, err := scanEntry(rows, &score)
			if err != nil {
				return mapErr(err)
			}
			entries, scores = append(entries, e), append(scores, score.Int64)
		}
		return mapErr(rows.Err())
	}
	if !hasCursor || cur.Rank > 0 {
		after, afterHex := int64(1)<<62, ""
		if hasCursor {
			after, afterHex = int64(cur.Rank), cur.Hex
		}
		args := append(append([]any{}, tagArgs...), after, after, afterHex, q.Limit+1)
		if err := read(`SELECT `+entryColumns+`, s.score FROM adoption_scores s JOIN documents d ON d.hex = s.hex
			WHERE d.withdrawn_at IS NULL`+tagFilter+` AND s.score > 0 AND (s.score < ? OR (s.score = ? AND s.hex > ?))
			ORDER BY s.score DESC, s.hex LIMIT ?`, args...); err != nil {
			return store.Page{}, err
		}
		hasCursor, cur = false, store.Cursor{}
	}
	if len(entries) <= q.Limit {
		afterHex := ""
		if hasCursor {
			afterHex = cur.Hex
		}
		args := append(append([]any{}, tagArgs...), afterHex, q.Limit+1-len(entries))
		if err := read(`SELECT `+entryColumns+`, NULL FROM documents d
			WHERE d.withdrawn_at IS NULL`+tagFilter+` AND d.hex > ?
			AND NOT EXISTS (SELECT 1 FROM adoption_scores s WHERE s.hex = d.hex AND s.score > 0)
			ORDER BY d.hex LIMIT ?`, args...); err != nil {
			return store.Page{}, err
		}
	}
	return store.PopularPage(q, entries, scores), nil
}
