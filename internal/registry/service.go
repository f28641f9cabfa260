// Package registry is the registry's business layer: publishing, reading,
// searching and withdrawing protocol documents, their lifecycle and
// versions, publishers and API tokens, domain verification, mirroring from
// upstream registries and task match. Transports
// (the HTTP API, HTML pages, the CLI) call it; it calls the Store it declares (store.go).
package registry

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/blobs"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/translog"
)

// Config is what the service needs to know about its deployment.
type Config struct {
	// PublicURL is the base of absolute URLs handed out, without a trailing
	// slash, e.g. "https://registry.example.org".
	PublicURL string
	// MaxDocumentBytes limits one document; 0 means the protocol default.
	MaxDocumentBytes int
	// CacheBytes bounds the in-memory cache of raw documents; 0 disables it.
	CacheBytes int
	// CacheTTL bounds how long a cached document is served without asking
	// the store (so a withdrawal through another replica shows); 0 = forever.
	CacheTTL time.Duration
	// Blobs, when set, is the blob directory raw fetches are served from
	// (filled by imports and by a document's first read); nil: none.
	Blobs *blobs.Store
	// Upstream, when set, is asked for documents the store lacks.
	Upstream Upstream
	// Logger receives warnings (a lying upstream); nil means slog.Default().
	Logger *slog.Logger
	// Log, when set, is the transparency log: it is told to integrate
	// after each change (the engines queue the change itself).
	Log *translog.Log
	// MatchLLM, when its Model is set, re-ranks a match's top candidates.
	MatchLLM MatchLLM
}

// Upstream fetches a document the store does not have (pull-through
// mirroring). The service verifies the bytes against the digest before
// storing them with origin recorded; a fetch that finds nothing returns
// store.ErrNotFound.
type Upstream interface {
	Fetch(ctx context.Context, d protocol.Digest) (content []byte, origin string, err error)
}

// Service is the registry's business logic.
type Service struct {
	store Store
	cfg   Config
	cache *rawCache
	log   *slog.Logger
	// replacing serialises deprecations that name a replacement, so two
	// at once cannot both pass the cycle check (lifecycle.go).
	replacing sync.Mutex
	// rerankSlots bounds the match re-ranks in flight (MatchLLM.Concurrency).
	rerankSlots chan struct{}
	// rerankBudget and rerankCache bound the completions re-ranks make.
	rerankBudget *rerankBudget
	rerankCache  *rerankCache
	blobs        blobState
	// corrupt counts the store's documents found not to hash to their name.
	corrupt atomic.Int64
	touchState
}

// New returns a service over a store.
func New(s Store, cfg Config) *Service {
	cfg.PublicURL = strings.TrimRight(cfg.PublicURL, "/")
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	cfg.MatchLLM = cfg.MatchLLM.withDefaults()
	svc := &Service{store: s, cfg: cfg, cache: newRawCache(cfg.CacheBytes, cfg.CacheTTL), log: log,
		rerankSlots:  make(chan struct{}, cfg.MatchLLM.Concurrency),
		rerankBudget: newRerankBudget(cfg.MatchLLM.PerMinute, cfg.MatchLLM.ClientPerMinute),
		rerankCache:  newRerankCache(cfg.MatchLLM.CacheEntries),
		touchState:   touchState{touched: map[int64]time.Time{}}}
	svc.initBlobs()
	return svc
}

// Ready reports whether the store answers (readiness probes).
func (s *Service) Ready(ctx context.Context) error { return s.store.Ping(ctx) }

// Engine names the storage engine ("sqlite" or "postgres").
func (s *Service) Engine() string { return s.store.Engine() }

// Config returns the service's configuration.
func (s *Service) Config() Config { return s.cfg }

// PublishResult is the outcome of a publish.
type PublishResult struct {
	Entry   entity.Entry
	Created bool
}

// Prepare validates and reads a document without storing it (previews).
func (s *Service) Prepare(content []byte) (protocol.Document, error) {
	return protocol.Prepare(content, s.cfg.MaxDocumentBytes)
}

// Publish validates, hashes and stores a document idempotently.
func (s *Service) Publish(ctx context.Context, content []byte, tags []string, origin string) (PublishResult, error) {
	return s.PublishRequest(ctx, PublishRequest{Content: content, Tags: tags, Origin: origin})
}

// PublishRequest is a publish with everything a transport may add.
type PublishRequest struct {
	Content []byte
	Tags    []string
	Origin  string
	// Publisher is the publisher of the token that publishes ("" for
	// DefaultPublisher); a document already stored keeps its own.
	Publisher string
	// Given is a title and description sent beside the text (the paper
	// demo's name and description): they stand in for the heading and
	// first paragraph, never for front matter. The stored bytes are never
	// changed.
	Given protocol.Given
}

// PublishRequest validates, hashes and stores a document idempotently.
func (s *Service) PublishRequest(ctx context.Context, r PublishRequest) (PublishResult, error) {
	nd, err := PrepareDocument(r, s.cfg.MaxDocumentBytes)
	if err != nil {
		return PublishResult{}, err
	}
	e, created, err := s.store.Put(ctx, nd)
	if err != nil {
		return PublishResult{}, err
	}
	if created {
		s.logChanged()
	}
	if e.Withdrawn() {
		// The tombstone stays: answering "exists" would tell the publisher
		// the document is served when every fetch of it gets 410.
		return PublishResult{}, store.ErrWithdrawn.With(
			"this protocol was withdrawn by an administrator and cannot be published again; publish a new version instead")
	}
	if !created {
		if err := checkTagsKept(e, nd.ExtraTags); err != nil {
			return PublishResult{}, err
		}
	}
	return PublishResult{Entry: e, Created: created}, nil
}

// Get returns one entry (content on request). A withdrawn entry comes with
// store.ErrWithdrawn. A miss is asked of the upstream, if any.
func (s *Service) Get(ctx context.Context, d protocol.Digest, withContent bool) (entity.Entry, error) {
	e, err := s.store.Get(ctx, d, withContent)
	if errors.Is(err, store.ErrNotFound) && s.cfg.Upstream != nil {
		if _, ferr := s.pull(ctx, d); ferr == nil {
			e, err = s.store.Get(ctx, d, withContent)
		}
	}
	if err == nil && withContent {
		if cerr := s.checkStored(d, e.Content); cerr != nil {
			return entity.Entry{}, cerr
		}
	}
	return e, err
}

// Raw returns a document's exact bytes, from the cache when hot. A miss is
// asked of the upstream, if any. The returned slice must not be modified.
func (s *Service) Raw(ctx context.Context, d protocol.Digest) ([]byte, error) {
	doc, err := s.RawDocument(ctx, d)
	if err != nil {
		return nil, err
	}
	return doc.Content, nil
}

// RawDocument is Raw with the document's precomputed HTTP values; the
// result is shared and must not be modified.
func (s *Service) RawDocument(ctx context.Context, d protocol.Digest) (*RawDocument, error) {
	if doc, ok := s.cache.get(d); ok {
		return doc, nil
	}
	b, lc, err := s.store.Content(ctx, d)
	if errors.Is(err, store.ErrNotFound) && s.cfg.Upstream != nil {
		if pulled, ferr := s.pull(ctx, d); ferr == nil {
			b, err = pulled, nil
		}
	}
	if err != nil {
		return nil, err
	}
	if err := s.checkStored(d, b); err != nil {
		return nil, err
	}
	// A first read (or one after a blob failed verification): the store's
	// bytes are checked against d before they become a file. Only an
	// active document's: the others are never answered from one.
	if plainActive(lc) {
		s.fillBlob(d, b)
	}
	doc := newRawDocument(d, b, lc, s.cfg.PublicURL)
	s.cache.put(doc)
	return doc, nil
}

// checkStored refuses the store's bytes for d unless they hash to d: a
// database changed behind the registry's back must not have them served,
// cached or written as a blob. Every read is checked (a SHA-1 of a few KiB
// costs far less than the query that fetched it); the cache and the blob
// directory then hold only checked bytes.
func (s *Service) checkStored(d protocol.Digest, b []byte) error {
	if protocol.Verify(b, d) == nil {
		return nil
	}
	s.corrupt.Add(1)
	s.log.Error("the database holds bytes for this document that do not hash to its name; not served (restore the document from a backup or another replica)",
		"hash", d.Hex(), "bytes", len(b))
	return apperr.ErrCorruptDocument
}

// CorruptReads counts the reads that found a document's stored bytes not
// hashing to its name (metrics).
func (s *Service) CorruptReads() int64 { return s.corrupt.Load() }

// CachedRaw returns d only if the memory cache holds it.
func (s *Service) CachedRaw(d protocol.Digest) (*RawDocument, bool) {
	return s.cache.get(d)
}

// RawAnswer is what a raw answer of d needs, from the memory cache, else
// d's blob file, else the store (RawDocument: a miss, a withdrawn or a
// deprecated document). Without body (HEAD, a matching If-None-Match) a
// blob's verified size is enough and Content may be nil. It is returned by
// value, so such an answer allocates nothing here.
func (s *Service) RawAnswer(ctx context.Context, d protocol.Digest, body bool) (RawDocument, error) {
	if doc, ok := s.cache.get(d); ok {
		return *doc, nil
	}
	if doc, ok := s.blobRaw(d, body); ok {
		return doc, nil
	}
	doc, err := s.RawDocument(ctx, d)
	if err != nil {
		return RawDocument{}, err
	}
	return *doc, nil
}

// pull fetches a missing document from the upstream, verifies it hashes to
// d and stores it with its origin. A lying upstream is logged and treated
// as a miss.
func (s *Service) pull(ctx context.Context, d protocol.Digest) ([]byte, error) {
	content, origin, err := s.cfg.Upstream.Fetch(ctx, d)
	if err != nil {
		return nil, err
	}
	if err := protocol.Verify(content, d); err != nil {
		s.log.Warn("upstream returned a document that does not match the requested hash; ignored",
			"hash", d.Hex(), "origin", origin, "error", err.Error())
		return nil, store.ErrNotFound
	}
	if _, err := s.PublishRequest(ctx, PublishRequest{Content: content, Origin: origin, Publisher: MirrorPublisher}); err != nil {
		return nil, err
	}
	return content, nil
}

// Search lists entries. Operators in the text (ParseOperators) filter.
func (s *Service) Search(ctx context.Context, q store.Query) (store.Page, error) {
	q, err := ParseOperators(q)
	if err != nil {
		return store.Page{}, err
	}
	if q.Sort == store.SortPopular {
		return s.store.Popular(ctx, q)
	}
	return s.store.Search(ctx, q)
}

// Summarize counts a search's matches and, with facets, the tags among
// them (store.Summary).
func (s *Service) Summarize(ctx context.Context, q store.Query, facets bool) (store.Summary, error) {
	q, err := ParseOperators(q)
	if err != nil {
		return store.Summary{}, err
	}
	return s.store.Summarize(ctx, q, facets)
}

// Suggest respells a search that found nothing by the indexed words; ""
// when there is nothing to offer.
func (s *Service) Suggest(ctx context.Context, text string) (string, error) {
	return s.store.Suggest(ctx, text)
}

// Resolve answers a batch of hashes.
func (s *Service) Resolve(ctx context.Context, ds []protocol.Digest) ([]store.Resolution, error) {
	return s.store.Resolve(ctx, ds)
}

// CacheSize reports the raw cache's bytes and documents (metrics).
func (s *Service) CacheSize() (bytes, docs int) { return s.cache.size() }

// Tags counts tags.
func (s *Service) Tags(ctx context.Context, limit int) ([]store.TagCount, error) {
	return s.store.Tags(ctx, limit)
}

// Stats counts documents.
func (s *Service) Stats(ctx context.Context) (store.Stats, error) {
	return s.store.Stats(ctx)
}

// Sources are the absolute raw URLs of a document, for protocolSources.
func (s *Service) Sources(d protocol.Digest) []string {
	return []string{s.cfg.PublicURL + "/protocol/" + d.Hex()}
}

// PublicURL is the registry's base URL as clients reach it.
func (s *Service) PublicURL() string { return s.cfg.PublicURL }

// PageURL is the absolute URL of a document's HTML page.
func (s *Service) PageURL(d protocol.Digest) string {
	return s.cfg.PublicURL + "/protocols/" + d.Hex()
}
