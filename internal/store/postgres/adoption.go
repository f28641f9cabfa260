package postgres

import (
	"context"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// AddAdoption adds a batch to one day's counts, merges its client
// sketches into the day's, and rescores those hashes, in one transaction.
func (s *Store) AddAdoption(ctx context.Context, day time.Time, deltas []store.AdoptionDelta) error {
	if len(deltas) > store.MaxAdoptionBatch {
		return store.ErrInvalid.With("too many adoption deltas in one batch")
	}
	if len(deltas) == 0 {
		return nil
	}
	day = store.Day(day)
	since := store.WindowStart(day)
	merged, err := store.MergeDeltas(deltas)
	if err != nil {
		return err
	}
	digests := make([][]byte, len(merged))
	for i := range merged {
		digests[i] = merged[i].Digest[:]
	}
	ctx, cancel := s.op(ctx)
	defer cancel()
	return mapErr(pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := lockAdoption(ctx, tx); err != nil {
			return err
		}
		// The day's stored sketches, read behind the lock: no other
		// writer merges into them until this transaction ends.
		stored := make(map[protocol.Digest]store.StoredClients, len(merged))
		rows, _ := tx.Query(ctx, `SELECT digest, clients, client_sketch FROM adoption_daily WHERE digest = ANY ($1) AND day = $2`, digests, day)
		var (
			b  []byte
			sc = store.StoredClients{Exists: true}
		)
		if _, err := pgx.ForEachRow(rows, []any{&b, &sc.Clients, &sc.Sketch}, func() error {
			d, err := digestOf(b)
			stored[d] = sc
			return err
		}); err != nil {
			return err
		}
		fetches := make([]int64, len(merged))
		resolutions := make([]int64, len(merged))
		clients := make([]int64, len(merged))
		sketches := make([][]byte, len(merged))
		for i, d := range merged {
			n, sk, err := stored[d.Digest].Merge(d.Clients)
			if err != nil {
				return err
			}
			fetches[i], resolutions[i], clients[i], sketches[i] = d.Fetches, d.Resolutions, n, sk
		}
		if _, err := tx.Exec(ctx, `INSERT INTO adoption_daily AS a (digest, day, fetches, resolutions, clients, client_sketch)
			SELECT d, $2, f, r, c, k FROM unnest($1::bytea[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bytea[]) AS u(d, f, r, c, k) ORDER BY d
			ON CONFLICT (digest, day) DO UPDATE SET fetches = a.fetches + EXCLUDED.fetches, resolutions = a.resolutions + EXCLUDED.resolutions,
				clients = EXCLUDED.clients, client_sketch = EXCLUDED.client_sketch`,
			digests, day, fetches, resolutions, clients, sketches); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO adoption_scores AS s (digest, score, since)
			SELECT u.d, coalesce((SELECT sum(clients) FROM adoption_daily a WHERE a.digest = u.d AND a.day >= $2), 0)
				+ (SELECT count(*) FROM agent_protocols p WHERE p.digest = u.d AND p.supported), $2
			FROM unnest($1::bytea[]) AS u(d) ORDER BY u.d
			ON CONFLICT (digest) DO UPDATE SET score = EXCLUDED.score, since = EXCLUDED.since`, digests, since)
		return err
	}))
}

// adoptionLockKey is the advisory lock that writes adoption counts and
// scores one transaction at a time across every process ("agoraADP").
const adoptionLockKey int64 = 0x61676f7261414450

// lockAdoption takes adoptionLockKey until tx ends. A score is a sum over
// day rows read from the statement's snapshot: two replicas writing one
// hash for different days (their clocks either side of midnight) would
// each miss the other's uncommitted row, and the second write would keep
// a partial sum. Behind the lock each statement sees every earlier batch.
// A batch is at most store.MaxAdoptionBatch rows and flushes come every
// few seconds per process, so the wait is short.
func lockAdoption(ctx context.Context, tx pgx.Tx) error {
	_, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, adoptionLockKey)
	return err
}

// AdoptionDays returns d's days with counts from..through.
func (s *Store) AdoptionDays(ctx context.Context, d protocol.Digest, from, through time.Time) ([]store.AdoptionDay, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	rows, _ := s.pool.Query(ctx, `SELECT day, fetches, resolutions, clients FROM adoption_daily
		WHERE digest = $1 AND day BETWEEN $2 AND $3 ORDER BY day`, d[:], store.Day(from), store.Day(through))
	return collect(rows, func(r pgx.Row) (a store.AdoptionDay, err error) {
		err = r.Scan(&a.Day, &a.Fetches, &a.Resolutions, &a.Clients)
		a.Day = store.Day(a.Day)
		return a, err
	})
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
	ctx, cancel := s.op(ctx)
	defer cancel()
	rows, _ := s.pool.Query(ctx, `SELECT digest, sum(fetches), sum(resolutions), sum(clients) FROM adoption_daily
		WHERE digest = ANY ($1) AND day >= $2 GROUP BY digest`, digestKeys(ds), store.Day(since))
	var (
		b []byte
		c store.AdoptionCounts
	)
	_, err := pgx.ForEachRow(rows, []any{&b, &c.Fetches, &c.Resolutions, &c.Clients}, func() error {
		d, err := digestOf(b)
		out[d] = c
		return err
	})
	return out, mapErr(err)
}

// RefreshAdoption rescores every hash for today's window, drops old
// sketches and old days.
func (s *Store) RefreshAdoption(ctx context.Context, today time.Time) error {
	since := store.WindowStart(today)
	ctx, cancel := s.op(ctx)
	defer cancel()
	return mapErr(pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := lockAdoption(ctx, tx); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO adoption_scores AS s (digest, score, since)
			SELECT digest, sum(n), $1 FROM (
				SELECT digest, clients AS n FROM adoption_daily WHERE day >= $1
				UNION ALL SELECT digest, 1 FROM agent_protocols WHERE supported) AS t
			GROUP BY digest HAVING sum(n) > 0 ORDER BY digest
			ON CONFLICT (digest) DO UPDATE SET score = EXCLUDED.score, since = EXCLUDED.since`, since); err != nil {
			return err
		}
		// Rows the statement above did not reach have nothing in the window.
		if _, err := tx.Exec(ctx, `DELETE FROM adoption_scores WHERE since < $1 OR score = 0`, since); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE adoption_daily SET client_sketch = NULL WHERE day < $1 AND client_sketch IS NOT NULL`,
			store.Day(today).AddDate(0, 0, -1)); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `DELETE FROM adoption_daily WHERE day < $1`,
			store.Day(today).AddDate(0, 0, -store.AdoptionRetentionDays))
		return err
	}))
}

// popularFilters keeps the scored rows of the query's publisher and status
// ($5 and $6; "" for any).
const popularFilters = ` AND ($5 = '' OR d.publisher = $5) AND ($6 = '' OR d.status = $6)`

// Popular lists scored entries by score, then the rest by digest.
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
	ctx, cancel := s.op(ctx)
	defer cancel()
	tags := store.NonNil(q.Tags)
	var entries []entity.Entry
	var scores []int64
	if !hasCursor || cur.Rank > 0 {
		after, afterDigest := int64(1)<<62, []byte{}
		if hasCursor {
			after, afterDigest = int64(cur.Rank), hexBytes(cur.Hex)
		}
		rows, _ := s.pool.Query(ctx, `SELECT `+popularColumns+`, s.score FROM adoption_scores s JOIN documents d ON d.digest = s.digest
			WHERE d.withdrawn_at IS NULL AND d.tags @> $1::text[] AND s.score > 0
			AND (s.score < $2 OR (s.score = $2 AND s.digest > $3))`+popularFilters+`
			ORDER BY s.score DESC, s.digest LIMIT $4`, tags, after, afterDigest, q.Limit+1, q.Publisher, string(q.Status))
		var err error
		if entries, err = collect(rows, func(r pgx.Row) (entity.Entry, error) {
			var score int64
			e, err := scanEntry(r, false, &score)
			scores = append(scores, score)
			return e, err
		}); err != nil {
			return store.Page{}, err
		}
		hasCursor, cur = false, store.Cursor{}
	}
	if len(entries) <= q.Limit {
		afterDigest := []byte{}
		if hasCursor {
			afterDigest = hexBytes(cur.Hex)
		}
		rows, _ := s.pool.Query(ctx, `SELECT `+popularColumns+` FROM documents d
			WHERE d.withdrawn_at IS NULL AND d.tags @> $1::text[] AND d.digest > $2
			AND NOT EXISTS (SELECT 1 FROM adoption_scores s WHERE s.digest = d.digest AND s.score > 0)
			AND ($4 = '' OR d.publisher = $4) AND ($5 = '' OR d.status = $5)
			ORDER BY d.digest LIMIT $3`, tags, afterDigest, q.Limit+1-len(entries), q.Publisher, string(q.Status))
		rest, err := collect(rows, func(r pgx.Row) (entity.Entry, error) { return scanEntry(r, false) })
		if err != nil {
			return store.Page{}, err
		}
		entries, scores = append(entries, rest...), append(scores, make([]int64, len(rest))...)
	}
	return store.PopularPage(q, entries, scores), nil
}

// hexBytes is a decoded cursor's digest (DecodeCursor checked its form).
func hexBytes(hex string) []byte {
	d := protocol.MustParseDigest(hex)
	return d[:]
}

// popularColumns are entryColumns of the documents alias d.
var popularColumns = "d." + strings.Join(strings.Split(strings.Join(strings.Fields(entryColumns), " "), ", "), ", d.")
