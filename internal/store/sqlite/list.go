package sqlite

import (
	"context"
	"database/sql"
	"math"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// The listing's statements, prepared once per read connection
// (listStatements): the demo's GET / runs them on every request, and
// parsing them each time was a tenth of its cost. The open ends are
// bounds beyond every row, so one statement serves every range.
const (
	listSQL = `SELECT hex, title, description, created_at FROM documents
		WHERE withdrawn_at IS NULL AND (created_at, hex) > (?, ?) AND (created_at, hex) <= (?, ?)
		ORDER BY created_at, hex LIMIT ?`
	listEndSQL = `SELECT created_at, hex FROM documents
		WHERE withdrawn_at IS NULL AND (created_at, hex) > (?, ?)
		ORDER BY created_at, hex LIMIT 2 OFFSET ?`
	listedCountSQL = `SELECT listed FROM document_counts`
	// afterEveryHex sorts after every lower-case hex digest.
	afterEveryHex = "g"
)

// listStatements are the prepared statements of the listing.
type listStatements struct {
	list, end, count *sql.Stmt
}

func prepareList(ctx context.Context, db *sql.DB) (listStatements, error) {
	var ls listStatements
	for _, p := range []struct {
		stmt **sql.Stmt
		sql  string
	}{{&ls.list, listSQL}, {&ls.end, listEndSQL}, {&ls.count, listedCountSQL}} {
		st, err := db.PrepareContext(ctx, p.sql)
		if err != nil {
			ls.close()
			return listStatements{}, mapErr(err)
		}
		*p.stmt = st
	}
	return ls, nil
}

func (ls listStatements) close() {
	for _, st := range []*sql.Stmt{ls.list, ls.end, ls.count} {
		if st != nil {
			st.Close()
		}
	}
}

// bound is a position as statement arguments; nil is the open end.
func bound(p *store.ListPosition, openTime int64, openHex string) (int64, string) {
	if p == nil {
		return openTime, openHex
	}
	return p.CreatedAt.UnixMicro(), p.Digest.Hex()
}

// List calls fn for each listed entry of r, oldest first.
func (s *Store) List(ctx context.Context, r store.ListRange, fn func(store.Listed) error) error {
	if err := r.Check(); err != nil {
		return err
	}
	afterTime, afterHex := bound(r.After, math.MinInt64, "")
	throughTime, throughHex := bound(r.Through, math.MaxInt64, afterEveryHex)
	rows, err := s.lists.list.QueryContext(ctx, afterTime, afterHex, throughTime, throughHex, r.Limit)
	var (
		l       store.Listed
		hexText []byte
		created int64
	)
	return each(rows, err, []any{&hexText, &l.Title, &l.Description, &created}, func() error {
		var err error
		if l.Digest, err = protocol.ParseDigest(string(hexText)); err != nil {
			return mapErr(err)
		}
		l.CreatedAt = fromMicros(created)
		return fn(l)
	})
}

// ListEnd finds the end of a page of n. From the start, the listed count
// (one counter row) answers most calls without a walk.
func (s *Store) ListEnd(ctx context.Context, after *store.ListPosition, n int) (*store.ListPosition, error) {
	if err := store.CheckListEnd(n); err != nil {
		return nil, err
	}
	if after == nil {
		var listed int64
		if err := s.lists.count.QueryRowContext(ctx).Scan(&listed); err != nil {
			return nil, mapErr(err)
		}
		if listed <= int64(n) {
			return nil, nil
		}
	}
	afterTime, afterHex := bound(after, math.MinInt64, "")
	rows, err := s.lists.end.QueryContext(ctx, afterTime, afterHex, n-1)
	if err != nil {
		return nil, mapErr(err)
	}
	found, err := collect(rows, func(sc scanner) (p store.ListPosition, err error) {
		var (
			created int64
			hexText string
		)
		if err = sc.Scan(&created, &hexText); err == nil {
			p.CreatedAt = fromMicros(created)
			p.Digest, err = protocol.ParseDigest(hexText)
		}
		return p, err
	})
	if err != nil {
		return nil, err
	}
	if len(found) < 2 {
		return nil, nil // the n-th is the last, or there are fewer
	}
	return &found[0], nil
}
