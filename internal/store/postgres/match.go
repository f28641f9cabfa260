package postgres

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/agora-registry/registry/internal/store"
)

// matchVector is a document's row of document_match, from the columns of
// the inserted row and the text of store.MatchText.
func matchVector(title, tags, description, queries, headings string) string {
	return `setweight(to_tsvector('english', ` + title + `), 'A') || setweight(to_tsvector('english', ` + queries + `), 'A') || ` +
		`setweight(to_tsvector('english', array_to_string(` + tags + `, ' ')), 'B') || ` +
		`setweight(to_tsvector('english', ` + description + `), 'C') || setweight(to_tsvector('english', ` + headings + `), 'D')`
}

// matchRank weighs the classes D, C, B, A (headings, description, tags,
// title and queries); normalization 1 divides by 1 + log(length), so a
// long document does not win by length alone.
const matchRank = `ts_rank('{0.2, 0.3, 0.5, 1.0}', m.doc, q.q, 1)`

// putMatchSQL indexes the documents of a PutMany batch that were inserted
// listed: $1 their digests, $2 and $3 their store.MatchText.
var putMatchSQL = `INSERT INTO document_match (digest, doc)
	SELECT d.digest, ` + matchVector("d.title", "d.tags", "d.description", "u.q", "u.h") + `
	FROM unnest($1::bytea[], $2::text[], $3::text[]) AS u(digest, q, h) JOIN documents d ON d.digest = u.digest
	WHERE d.withdrawn_at IS NULL
	ON CONFLICT (digest) DO NOTHING`

// MatchSearch asks document_match's GIN index for any of the words and
// ranks the rows that hold one.
func (s *Store) MatchSearch(ctx context.Context, words []string, limit int) ([]store.MatchHit, error) {
	if err := store.CheckMatchArgs(words, limit); err != nil {
		return nil, err
	}
	ctx, cancel := s.op(ctx)
	defer cancel()
	rows, err := s.pool.Query(ctx, `SELECT `+popularColumns+`, `+matchRank+` AS r
		FROM (SELECT to_tsquery('english', $1) AS q) AS q JOIN document_match m ON m.doc @@ q.q
		JOIN documents d ON d.digest = m.digest
		WHERE d.withdrawn_at IS NULL
		ORDER BY r DESC, d.digest LIMIT $2`, strings.Join(words, " | "), limit)
	if err != nil {
		return nil, mapErr(err)
	}
	return collect(rows, func(row pgx.Row) (store.MatchHit, error) {
		var r float32
		e, err := scanEntry(row, false, &r)
		return store.MatchHit{Entry: e, Relevance: float64(r)}, err
	})
}
