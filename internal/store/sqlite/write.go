package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// inWriteTx runs fn in one immediate transaction on the write connection
// and commits it; with synchronous=FULL the commit is on disk when this
// returns.
func (s *Store) inWriteTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	return s.writeTxLocked(ctx, fn)
}

// writeTxLocked is inWriteTx for a caller that holds writeMu.
func (s *Store) writeTxLocked(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return mapErr(err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return mapErr(err)
	}
	return mapErr(tx.Commit())
}

// inserter inserts documents within one transaction with prepared
// statements, handing out strictly increasing creation times.
type inserter struct {
	doc, content, tag, word, fts, metaFTS, matchFTS *sql.Stmt
	lastCreated                                     int64 // Unix microseconds
	// pending are full-text rows written by flush, for both full-text
	// tables. FTS5 writes its in-memory index to disk at every statement
	// savepoint, so text interleaved with other inserts makes one tiny
	// segment per document (and endless merging); each table's rows
	// written together make one.
	pending []ftsRow
	// pendingTags are (tag, document id) rows written by flush in one
	// statement: each statement that inserts a tag runs a trigger and a
	// foreign-key check, so SQLite journals every page it first touches
	// (to undo the statement alone); once per batch instead of once per
	// tag.
	pendingTags []any
	// pendingWords are the new documents' words for the word list
	// (store.HeadWords), written by flush in one statement.
	pendingWords []string
}

type ftsRow struct {
	id                             int64
	title, description, tags, body string
	queries, headings              string // the match index's (store.MatchText)
}

// flush writes the pending tag and full-text rows; call it before commit.
func (in *inserter) flush(ctx context.Context) error {
	if len(in.pendingTags) > 0 {
		if _, err := in.tag.ExecContext(ctx, jsonText(in.pendingTags)); err != nil {
			return err
		}
		in.pendingTags = in.pendingTags[:0]
	}
	if len(in.pendingWords) > 0 {
		if _, err := in.word.ExecContext(ctx, jsonText(in.pendingWords)); err != nil {
			return err
		}
		in.pendingWords = in.pendingWords[:0]
	}
	for _, r := range in.pending {
		if _, err := in.fts.ExecContext(ctx, r.id, r.title, r.description, r.tags, r.body); err != nil {
			return err
		}
	}
	for _, r := range in.pending {
		if _, err := in.metaFTS.ExecContext(ctx, r.id, r.title, r.description, r.tags); err != nil {
			return err
		}
	}
	for _, r := range in.pending {
		if _, err := in.matchFTS.ExecContext(ctx, r.id, r.title, r.tags, r.description, r.queries, r.headings); err != nil {
			return err
		}
	}
	in.pending = in.pending[:0]
	return nil
}

func newInserter(ctx context.Context, tx *sql.Tx) (*inserter, error) {
	in := &inserter{}
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(created_at), 0) FROM documents`).Scan(&in.lastCreated); err != nil {
		return nil, err
	}
	var err error
	prepare := func(query string) *sql.Stmt {
		if err != nil {
			return nil
		}
		var st *sql.Stmt
		st, err = tx.PrepareContext(ctx, query)
		return st
	}
	// OR FAIL: any error rolls the whole transaction back (inWriteTx), so
	// no statement needs undoing alone, and without ABORT's statement
	// rollback SQLite keeps no statement journal for these inserts (a copy
	// of every page a statement first touches; docs/benchmarks/import-throughput.md).
	in.doc = prepare(`INSERT OR FAIL INTO documents (hex, sha256, size, title, title_key, description, multiround, tags, version,
		supersedes, authors, license, front_matter, lints, origin, created_at, withdrawn_at, withdraw_reason, publisher)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (hex) DO NOTHING`)
	in.content = prepare(`INSERT OR FAIL INTO contents (id, content) VALUES (?, ?)`)
	// A tag row carries its document's newest-first key (migration 0006).
	in.tag = prepare(`INSERT OR IGNORE INTO document_tags (tag, doc_id, created_at, hex)
		SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3 FROM json_each(?)`)
	in.word = prepare(`INSERT OR IGNORE INTO search_words (word) SELECT value FROM json_each(?)`)
	in.fts = prepare(`INSERT INTO documents_fts (rowid, title, description, tags, body) VALUES (?, ?, ?, ?, ?)`)
	in.metaFTS = prepare(`INSERT INTO documents_meta_fts (rowid, title, description, tags) VALUES (?, ?, ?, ?)`)
	in.matchFTS = prepare(`INSERT INTO documents_match_fts (rowid, title, tags, description, queries, headings) VALUES (?, ?, ?, ?, ?, ?)`)
	return in, err
}

// nextCreated is now, or just after the newest row when the clock is
// behind it, so creation times never tie for documents put by this store.
func (in *inserter) nextCreated() int64 {
	now := time.Now().UnixMicro()
	if now <= in.lastCreated {
		now = in.lastCreated + 1
	}
	in.lastCreated = now
	return now
}

// checkNew refuses a document that did not come from protocol.Prepare or
// names a malformed publisher.
func checkNew(nd store.NewDocument) error {
	if nd.Document.Sums.SHA1.IsZero() || len(nd.Document.Content) == 0 {
		return store.ErrInvalid.With("the document was not prepared (no digest or no content)")
	}
	_, err := entity.PublisherOr(nd.Publisher)
	return err
}

// insert stores one document unless its digest is stored already.
func (in *inserter) insert(ctx context.Context, nd store.NewDocument) (created bool, err error) {
	if err := checkNew(nd); err != nil {
		return false, err
	}
	d := nd.Document
	m := d.Metadata
	publisher, _ := entity.PublisherOr(nd.Publisher) // checked by checkNew
	tags := protocol.NormaliseTags(append(append([]string{}, m.Tags...), nd.ExtraTags...))
	created64 := in.nextCreated()
	if !nd.CreatedAt.IsZero() {
		created64 = nd.CreatedAt.UnixMicro()
		in.lastCreated = max(in.lastCreated, created64)
	}
	var supersedes, withdrawn any
	if m.Supersedes != nil {
		supersedes = m.Supersedes.Hex()
	}
	if nd.WithdrawnAt != nil {
		withdrawn = nd.WithdrawnAt.UnixMicro()
	}
	res, err := in.doc.ExecContext(ctx, d.Sums.SHA1.Hex(), d.Sums.SHA256[:], len(d.Content), m.Title, store.NaturalKey(m.Title),
		m.Description, m.Multiround, jsonText(tags), m.Version, supersedes, jsonText(store.NonNil(m.Authors)), m.License, m.FrontMatter,
		jsonText(store.NonNil(d.Lints)), nd.Origin, created64, withdrawn, nd.WithdrawReason, publisher)
	if err != nil {
		return false, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return false, err // n == 0: stored already, the stored row wins
	}
	// The row id of this insert (a trigger's inserts do not change it).
	id, err := res.LastInsertId()
	if err != nil {
		return false, err
	}
	if _, err := in.content.ExecContext(ctx, id, d.Content); err != nil {
		return false, err
	}
	if nd.WithdrawnAt != nil {
		return true, nil // a tombstone is neither tagged nor searchable
	}
	for _, t := range tags {
		in.pendingTags = append(in.pendingTags, [4]any{t, id, created64, d.Sums.SHA1.Hex()})
	}
	in.pendingWords = append(in.pendingWords, store.HeadWords(m.Title, m.Description, tags)...)
	body := d.Content
	if _, rest, ok := protocol.SplitFrontMatter(d.Content); ok {
		body = rest
	}
	queries, headings := store.MatchText(d)
	in.pending = append(in.pending, ftsRow{id, m.Title, m.Description, strings.Join(tags, " "), string(body), queries, headings})
	return true, nil
}

// PutMany stores a batch in one transaction.
func (s *Store) PutMany(ctx context.Context, docs []store.NewDocument) ([]bool, error) {
	created := make([]bool, len(docs))
	if len(docs) == 0 {
		return created, nil
	}
	for _, nd := range docs {
		if err := checkNew(nd); err != nil {
			return nil, err
		}
	}
	err := s.inWriteTx(ctx, func(tx *sql.Tx) error {
		// A batch dirties more pages than the serving-size cache holds
		// (documents, indexes, full-text segments and their merges), which
		// spills them to the WAL mid-transaction to be written again at
		// commit (docs/benchmarks/import-throughput.md). The shrink before
		// commit frees the pages as the commit cleans them.
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA cache_size = -%d", s.bulkCacheKiB)); err != nil {
			return err
		}
		defer tx.ExecContext(context.WithoutCancel(ctx), fmt.Sprintf("PRAGMA cache_size = -%d", s.writeCacheKiB))
		in, err := newInserter(ctx, tx)
		if err != nil {
			return err
		}
		for i, nd := range docs {
			if created[i], err = in.insert(ctx, nd); err != nil {
				return err
			}
		}
		return in.flush(ctx)
	})
	if err != nil {
		return nil, err
	}
	return created, nil
}

// Withdraw tombstones an entry and takes it out of tags and search. A
// second withdrawal keeps the first time and reason.
func (s *Store) Withdraw(ctx context.Context, d protocol.Digest, reason string) error {
	return s.inWriteTx(ctx, func(tx *sql.Tx) error {
		var (
			id         int64
			withdrawn  sql.NullInt64
			supersedes sql.NullString
		)
		err := tx.QueryRowContext(ctx, `SELECT id, withdrawn_at, supersedes FROM documents WHERE hex = ?`, d.Hex()).Scan(&id, &withdrawn, &supersedes)
		if errors.Is(err, sql.ErrNoRows) {
			return store.ErrNotFound
		}
		if err != nil || withdrawn.Valid {
			return err
		}
		return withdrawTx(ctx, tx, id, reason, time.Now().UnixMicro())
	})
}

// withdrawTx tombstones row id and takes it out of tags and search.
func withdrawTx(ctx context.Context, tx *sql.Tx, id int64, reason string, at int64) error {
	if _, err := tx.ExecContext(ctx, `UPDATE documents SET withdrawn_at = ?, withdraw_reason = ? WHERE id = ?`,
		at, reason, id); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM document_tags WHERE doc_id = ?`, id); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM documents_fts WHERE rowid = ?`, id); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM documents_meta_fts WHERE rowid = ?`, id); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM documents_match_fts WHERE rowid = ?`, id); err != nil {
		return err
	}
	// A withdrawn version no longer demotes the one it supersedes (bit 1),
	// unless another listed version of the same publisher does.
	_, err := tx.ExecContext(ctx, `UPDATE documents SET demoted = demoted & ~1
		WHERE hex = (SELECT supersedes FROM documents WHERE id = ?) AND demoted & 1 <> 0 AND NOT EXISTS (SELECT 1 FROM documents n
			WHERE n.supersedes = documents.hex AND n.publisher = documents.publisher AND n.withdrawn_at IS NULL)`, id)
	return err
}
