package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// putManyStaging holds one PutMany batch inside its transaction; it is
// per-session and emptied at commit. Its rows are never compressed: rows
// up to 8 kB stay in the row (toast_tuple_target) and the content and
// words of larger ones go out of line as they are (stagingStorage).
// Compressing them here, only for the INSERT to decompress them again, was
// a large share of the insert (docs/benchmarks/postgres-write-profile.md).
const putManyStaging = `CREATE TEMP TABLE IF NOT EXISTS put_many_staging (
	ord int NOT NULL, digest bytea NOT NULL, sha256 bytea NOT NULL, content bytea NOT NULL, size int NOT NULL,
	title text NOT NULL, description text NOT NULL, multiround bool NOT NULL, tags text[] NOT NULL,
	version text NOT NULL, supersedes bytea, authors text[] NOT NULL, license text NOT NULL,
	front_matter bool NOT NULL, lints jsonb NOT NULL, origin text NOT NULL,
	created_at timestamptz, withdrawn_at timestamptz, withdraw_reason text NOT NULL,
	meta_text text NOT NULL, words text NOT NULL, publisher text NOT NULL
) WITH (toast_tuple_target = 8160) ON COMMIT DELETE ROWS`

// stagingStorage is run once per connection: PostgreSQL 15 sets a
// column's storage only with ALTER TABLE.
const stagingStorage = `ALTER TABLE put_many_staging ALTER content SET STORAGE EXTERNAL, ALTER words SET STORAGE EXTERNAL`

// stagingStored marks, in a connection's CustomData, that its staging
// table has stagingStorage.
const stagingStored = "agora-registry.staging-stored"

// stagingColumns are put_many_staging's columns: "ord", then insertValues.
var stagingColumns = []string{"ord", "digest", "sha256", "content", "size", "title", "description", "multiround", "tags",
	"version", "supersedes", "authors", "license", "front_matter", "lints", "origin",
	"created_at", "withdrawn_at", "withdraw_reason", "meta_text", "words", "publisher"}

// stagedValues reads put_many_staging (s) in insertColumns order; h.head
// is the row's headVector, computed once.
var stagedValues = `digest, sha256, content, size, title, description, multiround, tags, version, supersedes,
	authors, license, front_matter, lints, origin, coalesce(created_at, now()), withdrawn_at, withdraw_reason,
	h.head, ` + searchVector("h.head", "s.words") + `, s.publisher
	FROM put_many_staging s CROSS JOIN LATERAL (SELECT ` + headVector("s.title", "s.meta_text") + ` AS head) h`

// PutMany stores a batch in one transaction: COPY into a staging table,
// then one INSERT … ON CONFLICT DO NOTHING. Rows go in digest order, so
// concurrent batches that overlap take their row locks in the same order
// and cannot deadlock; among duplicates in one batch the first is created.
func (s *Store) PutMany(ctx context.Context, docs []store.NewDocument) ([]bool, error) {
	created := make([]bool, len(docs))
	if len(docs) == 0 {
		return created, nil
	}
	ctx, cancel := s.op(ctx)
	defer cancel()
	rows := make([][]any, len(docs))
	for i, nd := range docs {
		values, err := insertValues(nd)
		if err != nil {
			return nil, fmt.Errorf("document %d of the batch: %w", i, err)
		}
		rows[i] = append([]any{i}, values...)
	}
	n := 0 // documents inserted
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		connData := tx.Conn().PgConn().CustomData()
		staging := putManyStaging
		if connData[stagingStored] == nil {
			staging += "; " + stagingStorage
		}
		if _, err := tx.Exec(ctx, staging); err != nil {
			return err
		}
		// Should this transaction roll back, the table may be left
		// without its storage setting: rows then get compressed, which
		// costs time but is never wrong.
		connData[stagingStored] = true
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"put_many_staging"}, stagingColumns, pgx.CopyFromRows(rows)); err != nil {
			return err
		}
		inserted, err := tx.Query(ctx, `INSERT INTO documents (`+insertColumns+`)
			SELECT `+stagedValues+` ORDER BY s.digest, s.ord
			ON CONFLICT (digest) DO NOTHING
			RETURNING digest`)
		if err != nil {
			return err
		}
		firstIndex := make(map[protocol.Digest]int, len(docs))
		for i := len(docs) - 1; i >= 0; i-- {
			firstIndex[docs[i].Document.Sums.SHA1] = i
		}
		// RETURNING names each inserted digest once; the column's CHECK
		// keeps it 20 bytes long.
		var digest []byte
		_, err = pgx.ForEachRow(inserted, []any{&digest}, func() error {
			if i, ok := firstIndex[protocol.Digest(digest)]; ok {
				created[i] = true
				n++
			}
			return nil
		})
		if err != nil || n == 0 {
			return err
		}
		var ds [][]byte
		var qs, hs []string
		for i, nd := range docs {
			if created[i] {
				q, h := store.MatchText(nd.Document)
				ds, qs, hs = append(ds, nd.Document.Sums.SHA1[:]), append(qs, q), append(hs, h)
			}
		}
		_, err = tx.Exec(ctx, putMatchSQL, ds, qs, hs)
		return err
	})
	if err != nil {
		return nil, mapErr(err)
	}
	if n > 0 {
		s.wrote()
	}
	s.maybeAnalyze(ctx, n)
	return created, nil
}
