package registry

import (
	"context"
	"time"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// Store is what the business layer asks of a storage engine: the methods
// it calls and no others (internal/store documents each; both engines
// implement them and pass its conformance suite).
type Store interface {
	// Documents.
	Put(ctx context.Context, doc store.NewDocument) (e entity.Entry, created bool, err error)
	PutMany(ctx context.Context, docs []store.NewDocument) (created []bool, err error)
	Get(ctx context.Context, d protocol.Digest, withContent bool) (entity.Entry, error)
	Content(ctx context.Context, d protocol.Digest) ([]byte, entity.Lifecycle, error)
	Resolve(ctx context.Context, ds []protocol.Digest) ([]store.Resolution, error)
	ByPrefix(ctx context.Context, p store.HashPrefix, limit int) ([]store.Resolution, error)
	Search(ctx context.Context, q store.Query) (store.Page, error)
	Summarize(ctx context.Context, q store.Query, facets bool) (store.Summary, error)
	MatchSearch(ctx context.Context, words []string, limit int) ([]store.MatchHit, error)
	Suggest(ctx context.Context, text string) (string, error)
	List(ctx context.Context, r store.ListRange, fn func(store.Listed) error) error
	ListEnd(ctx context.Context, after *store.ListPosition, n int) (*store.ListPosition, error)
	Successors(ctx context.Context, d protocol.Digest) ([]entity.Entry, error)
	Inactive(ctx context.Context, fn func(d protocol.Digest, withdrawn bool) error) error
	Tags(ctx context.Context, limit int) ([]store.TagCount, error)
	Stats(ctx context.Context) (store.Stats, error)
	Each(ctx context.Context, fn func(entity.Entry) error) error

	// Lifecycle.
	SetStatus(ctx context.Context, d protocol.Digest, c store.StatusChange) (entity.Entry, error)
	History(ctx context.Context, d protocol.Digest) ([]entity.HistoryEvent, error)
	Lineage(ctx context.Context, d protocol.Digest) ([]entity.Entry, error)
	Catalog(ctx context.Context, q store.CatalogQuery) (store.Page, error)

	// API tokens and publisher accounts.
	CreateToken(ctx context.Context, publisher string, name string, scopes []entity.Scope, secretHash [32]byte, createdBy string) (entity.Token, error)
	TokenBySecret(ctx context.Context, secretHash [32]byte) (entity.Token, error)
	ListTokens(ctx context.Context) ([]entity.Token, error)
	RevokeToken(ctx context.Context, id int64) error
	TouchToken(ctx context.Context, id int64, at time.Time) error
	CreatePublisher(ctx context.Context, p entity.Publisher) (entity.Publisher, error)
	GetPublisher(ctx context.Context, name string) (entity.Publisher, error)
	ListPublishers(ctx context.Context) ([]entity.Publisher, error)
	SetChallenge(ctx context.Context, name string, domain string, challenge string) error
	MarkVerified(ctx context.Context, name string, domain string, at time.Time) error

	// Adoption signals.
	AdoptionDays(ctx context.Context, d protocol.Digest, from time.Time, through time.Time) ([]store.AdoptionDay, error)
	AdoptionTotals(ctx context.Context, ds []protocol.Digest, since time.Time) (map[protocol.Digest]store.AdoptionCounts, error)
	Popular(ctx context.Context, q store.Query) (store.Page, error)
	SpeakerCounts(ctx context.Context, ds []protocol.Digest) (map[protocol.Digest]int, error)

	// Readiness.
	Ping(ctx context.Context) error
	Engine() string
}
