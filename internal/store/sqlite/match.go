package sqlite

import (
	"context"
	"strings"

	"github.com/agora-registry/registry/internal/store"
)

// matchBM25 weighs documents_match_fts's columns: title, tags,
// description, queries, headings (docs/agent.md, "Task match").
const matchBM25 = `bm25(documents_match_fts, 4, 2, 1, 3, 1)`

// MatchSearch asks documents_match_fts for any of the words, scored by
// BM25. BM25 scores every row that holds a word, so words held by
// store.MatchCommonRows rows or more (counted up to that) are left out
// while rarer ones remain: they would cost the most and weigh the least.
// When every word is that common, rows must hold all of them.
func (s *Store) MatchSearch(ctx context.Context, words []string, limit int) ([]store.MatchHit, error) {
	if err := store.CheckMatchArgs(words, limit); err != nil {
		return nil, err
	}
	var rare, common []string
	for _, w := range words {
		var n int
		if err := s.read.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM documents_match_fts
			WHERE documents_match_fts MATCH ? LIMIT ?)`, quote(w), store.MatchCommonRows).Scan(&n); err != nil {
			return nil, mapErr(err)
		}
		if n < store.MatchCommonRows {
			rare = append(rare, quote(w))
		} else {
			common = append(common, quote(w))
		}
	}
	expr := strings.Join(rare, " OR ")
	if len(rare) == 0 {
		expr = strings.Join(common, " AND ")
	}
	rows, err := s.read.QueryContext(ctx, `SELECT `+entryColumns+`, m.r FROM (
		SELECT rowid AS id, `+matchBM25+` AS r FROM documents_match_fts WHERE documents_match_fts MATCH ? ORDER BY r, rowid LIMIT ?
	) AS m JOIN documents d ON d.id = m.id WHERE d.withdrawn_at IS NULL ORDER BY m.r, d.hex`, expr, limit)
	if err != nil {
		return nil, mapErr(err)
	}
	return collect(rows, func(sc scanner) (store.MatchHit, error) {
		var r float64
		e, err := scanEntry(sc, &r)
		return store.MatchHit{Entry: e, Relevance: -r}, err // bm25() is lower for better
	})
}
