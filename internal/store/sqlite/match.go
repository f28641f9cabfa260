package sqlite

import (
	"context"
	"strings"

	"github.com/agora-registry/registry/internal/store"
)

// matchBM25 weighs documents_match_fts's columns: title, tags,
// description, queries, headings (docs/agent.md, "Task match").
const matchBM25 = `bm25(documents_match_fts, 4, 2, 1, 3, 1)`

// MatchSearch asks documents_match_fts for any of the words; FTS5 scores
// each row that holds one by BM25 and keeps the best limit.
func (s *Store) MatchSearch(ctx context.Context, words []string, limit int) ([]store.MatchHit, error) {
	if err := store.CheckMatchArgs(words, limit); err != nil {
		return nil, err
	}
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = `"` + w + `"` // letters and digits only: no quote to escape
	}
	rows, err := s.read.QueryContext(ctx, `SELECT `+entryColumns+`, m.r FROM (
		SELECT rowid AS id, `+matchBM25+` AS r FROM documents_match_fts WHERE documents_match_fts MATCH ? ORDER BY r LIMIT ?
	) AS m JOIN documents d ON d.id = m.id WHERE d.withdrawn_at IS NULL ORDER BY m.r, d.hex`, strings.Join(quoted, " OR "), limit)
	if err != nil {
		return nil, mapErr(err)
	}
	return collect(rows, func(sc scanner) (store.MatchHit, error) {
		var r float64
		e, err := scanEntry(sc, &r)
		return store.MatchHit{Entry: e, Relevance: -r}, err // bm25() is lower for better
	})
}
