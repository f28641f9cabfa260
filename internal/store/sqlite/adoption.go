package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// dayNumber is a UTC day as days since 1970-01-01 (the schema's day).
func dayNumber(t time.Time) int64 { return store.Day(t).Unix() / 86400 }

func fromDayNumber(n int64) time.Time { return time.Unix(n*86400, 0).UTC() }

// AddAdoption adds a batch to one day's counts, merges its client
// sketches into the day's, and rescores those hashes, in one transaction.
// Single-row statements: a multi-row statement makes SQLite keep a
// statement journal of every page it touches, which costs more than the
// executions it saves.
func (s *Store) AddAdoption(ctx context.Context, day time.Time, deltas []store.AdoptionDelta) error {
	if len(deltas) > store.MaxAdoptionBatch {
		return store.ErrInvalid.With("too many adoption deltas in one batch")
	}
	if len(deltas) == 0 {
		return nil
	}
	merged, err := store.MergeDeltas(deltas)
	if err != nil {
		return err
	}
	dn, since := dayNumber(day), dayNumber(store.WindowStart(day))
	return s.inWriteTx(ctx, func(tx *sql.Tx) error {
		read, err := tx.PrepareContext(ctx, `SELECT clients, client_sketch FROM adoption_daily WHERE hex = ? AND day = ?`)
		if err != nil {
			return err
		}
		defer read.Close()
		add, err := tx.PrepareContext(ctx, `INSERT INTO adoption_daily (hex, day, fetches, resolutions, clients, client_sketch) VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (hex, day) DO UPDATE SET fetches = fetches + excluded.fetches, resolutions = resolutions + excluded.resolutions,
				clients = excluded.clients, client_sketch = excluded.client_sketch`)
		if err != nil {
			return err
		}
		defer add.Close()
		score, err := tx.PrepareContext(ctx, `INSERT INTO adoption_scores (hex, score, since)
			VALUES (?1, (SELECT coalesce(sum(clients), 0) FROM adoption_daily WHERE hex = ?1 AND day >= ?2)
				+ (SELECT count(*) FROM agent_protocols WHERE hex = ?1 AND supported), ?2)
			ON CONFLICT (hex) DO UPDATE SET score = excluded.score, since = excluded.since`)
		if err != nil {
			return err
		}
		defer score.Close()
		// The rows are written without a cancellable context (the driver
		// starts a goroutine per call that has one); the batch is bounded.
		rowCtx := context.WithoutCancel(ctx)
		for _, d := range merged {
			h := d.Digest.Hex()
			var sc store.StoredClients
			switch err := read.QueryRowContext(rowCtx, h, dn).Scan(&sc.Clients, &sc.Sketch); {
			case err == nil:
				sc.Exists = true
			case !errors.Is(err, sql.ErrNoRows):
				return err
			}
			n, sk, err := sc.Merge(d.Clients)
			if err != nil {
				return err
			}
			if _, err := add.ExecContext(rowCtx, h, dn, d.Fetches, d.Resolutions, n, sk); err != nil {
				return err
			}
			if _, err := score.ExecContext(rowCtx, h, since); err != nil {
				return err
			}
		}
		return nil
	})
}

// AdoptionDays returns d's days with counts from..through.
func (s *Store) AdoptionDays(ctx context.Context, d protocol.Digest, from, through time.Time) ([]store.AdoptionDay, error) {
	return queryAll(ctx, s.read, func(sc scanner) (a store.AdoptionDay, err error) {
		var dn int64
		err = sc.Scan(&dn, &a.Fetches, &a.Resolutions, &a.Clients)
		a.Day = fromDayNumber(dn)
		return a, err
	}, `SELECT day, fetches, resolutions, clients FROM adoption_daily
		WHERE hex = ? AND day BETWEEN ? AND ? ORDER BY day`, d.Hex(), dayNumber(from), dayNumber(through))
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
	rows, err := s.read.QueryContext(ctx, `SELECT hex, sum(fetches), sum(resolutions), sum(clients) FROM adoption_daily
		WHERE hex IN (SELECT value FROM json_each(?)) AND day >= ? GROUP BY hex`, hexJSON(ds), dayNumber(since))
	var (
		hex string
		c   store.AdoptionCounts
	)
	return out, each(rows, err, []any{&hex, &c.Fetches, &c.Resolutions, &c.Clients}, func() error {
		d, err := protocol.ParseDigest(hex)
		if err != nil {
			return fmt.Errorf("corrupt adoption hash %q", hex)
		}
		out[d] = c
		return nil
	})
}

// RefreshAdoption rescores every hash for today's window, drops old
// sketches and old days.
func (s *Store) RefreshAdoption(ctx context.Context, today time.Time) error {
	since := dayNumber(store.WindowStart(today))
	return s.inWriteTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO adoption_scores (hex, score, since)
			SELECT hex, sum(n), ?1 FROM (
				SELECT hex, clients AS n FROM adoption_daily WHERE day >= ?1
				UNION ALL SELECT hex, 1 FROM agent_protocols WHERE supported)
			WHERE true GROUP BY hex HAVING sum(n) > 0
			ON CONFLICT (hex) DO UPDATE SET score = excluded.score, since = excluded.since`, since); err != nil {
			return err
		}
		// Rows the statement above did not reach have nothing in the window.
		if _, err := tx.ExecContext(ctx, `DELETE FROM adoption_scores WHERE since < ? OR score = 0`, since); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE adoption_daily SET client_sketch = NULL WHERE day < ? AND client_sketch IS NOT NULL`,
			dayNumber(today)-1); err != nil {
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
	conds, condArgs := listFilters(q)
	for _, c := range conds {
		tagFilter += " AND " + c
	}
	tagArgs = append(tagArgs, condArgs...)
	var (
		entries []entity.Entry
		scores  []int64
	)
	read := func(query string, args ...any) error {
		more, err := queryAll(ctx, s.read, func(sc scanner) (entity.Entry, error) {
			var score sql.NullInt64
			e, err := scanEntry(sc, &score)
			scores = append(scores, score.Int64)
			return e, err
		}, query, args...)
		entries = append(entries, more...)
		return err
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
