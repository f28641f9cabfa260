// Package store declares the storage API of the registry. Two engines
// implement it (postgres, sqlite) and both must pass the one conformance
// suite in storetest.
package store

import (
	"context"
	"fmt"
	"time"

	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
)

// Errors every engine returns for the same situations. Match with errors.Is.
var (
	ErrNotFound      = apperr.New(apperr.NotFound, "not_found", "no protocol with this hash")
	ErrWithdrawn     = apperr.New(apperr.Gone, "withdrawn", "this protocol was withdrawn")
	ErrInvalid       = apperr.New(apperr.Invalid, "invalid_request", "invalid request")
	ErrInvalidCursor = apperr.New(apperr.Invalid, "invalid_cursor", "the cursor is malformed or belongs to another query")
	ErrConflict      = apperr.New(apperr.Conflict, "conflict", "conflicting data")
	ErrTokenUnknown  = apperr.New(apperr.Unauthenticated, "invalid_token", "unknown or revoked API token")
	ErrUnavailable   = apperr.New(apperr.Unavailable, "database_unavailable", "the database is unavailable; try again shortly")
)

// Limits of store operations. They are part of the API contract.
const (
	MaxPageSize     = 100
	DefaultPageSize = 20
	MaxResolve      = 1000 // hashes in one Resolve call
	MaxQueryRunes   = 200  // characters of a search query
	MaxFilterTags   = 5
	MaxSuccessors   = 100 // entries one Successors call returns
)

// NewDocument is what Put stores.
type NewDocument struct {
	Document protocol.Document
	// ExtraTags are tags given beside the document (already normalised);
	// they are merged with the front matter's tags.
	ExtraTags []string
	Origin    string
	// Publisher is recorded on a new row; "" means DefaultPublisher. An
	// existing entry keeps its own.
	Publisher string
	// CreatedAt, when not zero, is kept as the entry's creation time (import
	// of an archive keeps the original time); zero means now. Only a new row
	// uses it: an existing entry keeps its own time.
	CreatedAt time.Time
	// WithdrawnAt, when set, stores a new row already tombstoned with
	// WithdrawReason (import of a withdrawn entry). An existing entry is left
	// as it is; the importer calls Withdraw for that case.
	WithdrawnAt    *time.Time
	WithdrawReason string
}

// Sort orders browse and search results.
type Sort string

const (
	SortRelevance Sort = "relevance" // needs a query; falls back to newest without one
	SortNewest    Sort = "newest"
	SortName      Sort = "name"
)

// Query selects a page of entries. The zero value lists the newest entries.
type Query struct {
	Text string   // full-text query; words are ANDed; "" lists everything
	Tags []string // every tag must match
	// Publisher, when set, keeps only that publisher's entries.
	Publisher string
	// Status, when set (StatusActive or StatusDeprecated), keeps only
	// entries of that status.
	Status entity.Status
	Sort   Sort   // "" means relevance with Text, newest without
	Limit  int    // 0 means DefaultPageSize; capped at MaxPageSize
	Cursor string // from a previous Page.NextCursor of the same query
}

// Filtered reports whether the query filters by tag, publisher or status.
func (q Query) Filtered() bool { return len(q.Tags) > 0 || q.Publisher != "" || q.Status != "" }

// Page is one page of results. NextCursor is "" on the last page.
// Entries have no Content and withdrawn entries never appear.
type Page struct {
	Entries    []entity.Entry
	NextCursor string
}

// MaxListChunk caps the rows of one List call.
const MaxListChunk = 1000

// ListPosition is a place in the listing order: creation time (at the
// microsecond every engine keeps), then digest.
type ListPosition struct {
	CreatedAt time.Time
	Digest    protocol.Digest
}

// Listed is one row of the full listing (the paper demo's GET /).
type Listed struct {
	Digest      protocol.Digest
	Title       string
	Description string
	CreatedAt   time.Time
}

// Position is where the row stands in the listing order.
func (l Listed) Position() ListPosition {
	return ListPosition{CreatedAt: l.CreatedAt, Digest: l.Digest}
}

// ListRange is a stretch of the listing of listed entries, oldest first.
type ListRange struct {
	After   *ListPosition // nil: from the first listed entry
	Through *ListPosition // nil: to the last
	Limit   int           // rows at most, 1 to MaxListChunk
}

// NonNil is s, or an empty slice for nil: a JSON [] rather than null, an
// array column's '{}' rather than NULL.
func NonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// checkListArgs refuses a List or ListEnd call outside the contract.
func checkListArgs(n, max int) error {
	if n < 1 || n > max {
		return ErrInvalid.With(fmt.Sprintf("a listing takes 1 to %d rows at a time", max))
	}
	return nil
}

// Check validates a range.
func (r ListRange) Check() error { return checkListArgs(r.Limit, MaxListChunk) }

// MaxListEnd caps ListEnd's n.
const MaxListEnd = 1 << 24

// CheckListEnd validates ListEnd's n.
func CheckListEnd(n int) error { return checkListArgs(n, MaxListEnd) }

// TagCount is a tag and how many listed entries carry it.
type TagCount struct {
	Tag   string
	Count int
}

// Resolution is the answer for one hash of a batch. It holds only what a
// batch resolve reports, so an engine reads three columns per row instead
// of decoding whole entries (a batch is up to MaxResolve rows); callers
// that need an entry use Get.
type Resolution struct {
	Digest    protocol.Digest
	Found     bool
	Title     string // "" when not found
	Withdrawn bool   // found, but carries a tombstone
	// Status, Message and Replacement are the lifecycle of a found entry.
	Status      entity.Status
	Message     string
	Replacement *protocol.Digest
	// Publisher is who first published a found entry (Resolve sets it;
	// ByPrefix leaves it "").
	Publisher string
}

// Stats are counts for the home page and metrics.
type Stats struct {
	Documents int // listed (not withdrawn)
	Withdrawn int
	Tags      int
}

// Documents is the document half of the store.
type Documents interface {
	// Put stores a prepared document idempotently: if the digest is already
	// stored it returns the stored entry and created=false (concurrent Puts
	// of one document make one row). A withdrawn document stays withdrawn.
	// The write is durable when Put returns.
	Put(ctx context.Context, doc NewDocument) (e entity.Entry, created bool, err error)
	// PutMany is Put for a batch in one transaction; created[i] tells
	// whether docs[i] was new.
	PutMany(ctx context.Context, docs []NewDocument) (created []bool, err error)
	// MatchSearch ranks listed entries holding any of words (CheckMatchArgs)
	// in their title, representative queries, tags, description or
	// headings, weighted by field in that order (SQLite: BM25; PostgreSQL:
	// ts_rank), best first, at most limit; ties go to the smaller digest.
	// An engine may leave out words held by MatchCommonRows documents or
	// more when rarer words remain (SQLite does, to bound BM25's work).
	MatchSearch(ctx context.Context, words []string, limit int) ([]MatchHit, error)
	// Get returns one entry, with Content when withContent is set.
	// A withdrawn entry is returned together with ErrWithdrawn.
	Get(ctx context.Context, d protocol.Digest, withContent bool) (entity.Entry, error)
	// Content returns the exact stored bytes and the lifecycle (the hot
	// path of raw fetches). A withdrawn entry gives ErrWithdrawn.
	Content(ctx context.Context, d protocol.Digest) ([]byte, entity.Lifecycle, error)
	// Resolve looks up many digests in one round trip (at most MaxResolve),
	// answering in the order asked, one answer per digest asked (a
	// duplicate is answered each time). A withdrawn entry is found, with
	// Withdrawn set.
	Resolve(ctx context.Context, ds []protocol.Digest) ([]Resolution, error)
	// Search lists listed entries by query with keyset pagination: pages
	// neither skip nor repeat rows while rows are being added and no
	// adoption level changes. Relevance ranks live head matches (a query
	// word in the title and in the description or tags: 3, in the title:
	// 2, in the description or tags: 1) by that rank times RankBase plus
	// the entry's AdoptionLevel, then live body-only matches, then demoted
	// entries; equal scores by NaturalKey, then digest (SQLite: within
	// windows of 1,024 consecutive publications, newest first). The name
	// sort orders by NaturalKey. The last query word also matches the indexed words it is
	// a prefix of (Match).
	Search(ctx context.Context, q Query) (Page, error)
	// Summarize counts the matches of q (its cursor, sort and limit
	// aside) and, with facets, their tags. It reads at most
	// SummaryRows(facets) matches; a larger set is estimated (Summary).
	Summarize(ctx context.Context, q Query, facets bool) (Summary, error)
	// Suggest respells text's words by the word list (store.Suggest), for
	// a search that found nothing; "" when it has nothing to offer.
	Suggest(ctx context.Context, text string) (string, error)
	// List calls fn for each listed entry of r, oldest first (creation
	// time, then digest). fn runs while the engine reads: it should be
	// quick, so callers list a chunk at a time and write between chunks.
	List(ctx context.Context, r ListRange, fn func(Listed) error) error
	// ListEnd returns the position of the n-th listed entry after after
	// (nil: from the first) in List's order when another listed entry
	// follows it, and nil when at most n do: the end of a page of n.
	ListEnd(ctx context.Context, after *ListPosition, n int) (*ListPosition, error)
	// ByPrefix lists the entries whose hex digest starts with p, withdrawn
	// ones too (Withdrawn set), in digest order, at most limit (1 to
	// MaxPrefixMatches): a range scan of the digest key, never a table scan.
	ByPrefix(ctx context.Context, p HashPrefix, limit int) ([]Resolution, error)
	// Successors lists listed entries whose front matter supersedes d,
	// at most MaxSuccessors: those of d's publisher first, then the others
	// (claims), each oldest first, so that claims, however many, never
	// crowd out the publisher's own versions.
	Successors(ctx context.Context, d protocol.Digest) ([]entity.Entry, error)
	// Inactive calls fn for the digest of every entry that is withdrawn
	// or not active (deprecated), in no particular order, saying which
	// (the raw path's set of documents never answered from a blob file).
	// It reads an index of those rows only.
	Inactive(ctx context.Context, fn func(d protocol.Digest, withdrawn bool) error) error
	// Withdraw tombstones an entry; withdrawing twice is not an error.
	Withdraw(ctx context.Context, d protocol.Digest, reason string) error
	// Tags counts listed entries per tag, most used first, at most limit.
	Tags(ctx context.Context, limit int) ([]TagCount, error)
	Stats(ctx context.Context) (Stats, error)
	// Each calls fn for every entry (withdrawn too) with Content, in
	// creation order, for export.
	Each(ctx context.Context, fn func(entity.Entry) error) error
}

// Tokens is the API-token half of the store.
type Tokens interface {
	// CreateToken stores a token of publisher ("" means DefaultPublisher);
	// createdBy names the signed-in user who made it ("" for the CLI).
	CreateToken(ctx context.Context, publisher, name string, scopes []entity.Scope, secretHash [32]byte, createdBy string) (entity.Token, error)
	// TokenBySecret finds an unrevoked token by its secret's hash, or
	// ErrTokenUnknown.
	TokenBySecret(ctx context.Context, secretHash [32]byte) (entity.Token, error)
	ListTokens(ctx context.Context) ([]entity.Token, error)
	RevokeToken(ctx context.Context, id int64) error // ErrNotFound if no such id
	TouchToken(ctx context.Context, id int64, at time.Time) error
}

// Session is a signed-in browser's record. The cookie holds a random id;
// only its SHA-256 is stored. Admin and Publishers are the roles the
// user's claims gave at sign-in.
type Session struct {
	IDHash     [32]byte
	Subject    string
	Email      string
	Admin      bool
	Publishers []string
	CreatedAt  time.Time
	ExpiresAt  time.Time
}

// Sessions is the browser-session half of the store.
type Sessions interface {
	// CreateSession stores s and deletes every session that expired
	// before s.CreatedAt, so the table holds live sessions only.
	CreateSession(ctx context.Context, s Session) error
	// SessionByID returns the session whose id hashes to idHash if it
	// expires after now; ErrNotFound otherwise.
	SessionByID(ctx context.Context, idHash [32]byte, now time.Time) (Session, error)
	// DeleteSession ends a session; an unknown one is not an error.
	DeleteSession(ctx context.Context, idHash [32]byte) error
}

// Store is a whole storage engine.
type Store interface {
	Documents
	Lifecycles
	Tokens
	Sessions
	Publishers
	Agents
	Adoption
	Log
	Follows
	Webhooks
	// Ping checks that the database answers (readiness).
	Ping(ctx context.Context) error
	// Engine names the engine ("postgres", "sqlite").
	Engine() string
	Close() error
}
