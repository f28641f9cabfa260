package sqlite

import (
	"context"
	"database/sql"
	"time"

	modernc "modernc.org/sqlite"
)

// SetWalkThreshold lets tests force either plan of filtered listings.
func SetWalkThreshold(n int) (restore func()) {
	old := walkThreshold
	walkThreshold = n
	return func() { walkThreshold = old }
}

// Tuning is the memory knobs of a Store, for measurements.
type Tuning struct {
	Readers, ReadCacheKiB, WriteCacheKiB, BulkCacheKiB, MmapKiB int
}

// DefaultTuning is what Open uses.
func DefaultTuning() Tuning {
	t := defaultTuning()
	return Tuning{t.readers, t.readCacheKiB, t.writeCacheKiB, t.bulkCacheKiB, t.mmapKiB}
}

// OpenTuned is Open with other memory knobs.
func OpenTuned(ctx context.Context, path string, t Tuning) (*Store, error) {
	return open(ctx, path, tuning{t.Readers, t.ReadCacheKiB, t.WriteCacheKiB, t.BulkCacheKiB, t.MmapKiB})
}

// ConnMemory is what one connection's SQLite reports it holds, in bytes.
type ConnMemory struct {
	Cache, Schema, Stmt, Lookaside int
	// Misses and Spills count since the last report: pages read into the
	// cache, and dirty pages written out before commit to make room.
	Misses, Spills int
}

// ReaderMemory reports every open read connection's memory; it holds them
// all at once so each is seen once.
func (s *Store) ReaderMemory(ctx context.Context) ([]ConnMemory, error) {
	var out []ConnMemory
	var conns []*sql.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range s.read.Stats().OpenConnections {
		// A connection the pool is still closing counts as open but
		// is never handed out: wait briefly, then report the others.
		wait, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		c, err := s.read.Conn(wait)
		cancel()
		if err != nil {
			break
		}
		conns = append(conns, c)
		m, err := connMemory(c)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// WriterMemory reports the write connection's memory.
func (s *Store) WriterMemory(ctx context.Context) (ConnMemory, error) {
	c, err := s.write.Conn(ctx)
	if err != nil {
		return ConnMemory{}, err
	}
	defer c.Close()
	return connMemory(c)
}

func connMemory(c *sql.Conn) (ConnMemory, error) {
	var m ConnMemory
	err := c.Raw(func(dc any) error {
		st := dc.(modernc.DBStatus)
		for _, f := range []struct {
			op    modernc.DBStatusOp
			dst   *int
			reset bool
		}{
			{modernc.DBStatusCacheUsed, &m.Cache, false}, {modernc.DBStatusSchemaUsed, &m.Schema, false},
			{modernc.DBStatusStmtUsed, &m.Stmt, false}, {modernc.DBStatusLookasideUsed, &m.Lookaside, false},
			{modernc.DBStatusCacheMiss, &m.Misses, true}, {modernc.DBStatusCacheSpill, &m.Spills, true},
		} {
			cur, _, err := st.Status(f.op, f.reset)
			if err != nil {
				return err
			}
			*f.dst = cur
		}
		return nil
	})
	return m, err
}

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
