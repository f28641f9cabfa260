// Package registry is the registry's business layer: publishing, reading,
// searching and withdrawing protocol documents, and API tokens. Transports
// (the HTTP API, HTML pages, the CLI) call it; it calls a store.Store.
package registry

import (
	"context"
	"strings"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// Config is what the service needs to know about its deployment.
type Config struct {
	// PublicURL is the base of absolute URLs handed out, without a trailing
	// slash, e.g. "https://registry.example.org".
	PublicURL string
	// MaxDocumentBytes limits one document; 0 means the protocol default.
	MaxDocumentBytes int
}

// Service is the registry's business logic.
type Service struct {
	store store.Store
	cfg   Config
}

// New returns a service over a store.
func New(s store.Store, cfg Config) *Service {
	cfg.PublicURL = strings.TrimRight(cfg.PublicURL, "/")
	return &Service{store: s, cfg: cfg}
}

// Store exposes the underlying store to operations code (readiness, export).
func (s *Service) Store() store.Store { return s.store }

// Config returns the service's configuration.
func (s *Service) Config() Config { return s.cfg }

// PublishResult is the outcome of a publish.
type PublishResult struct {
	Entry   store.Entry
	Created bool
}

// Prepare validates and reads a document without storing it (previews).
func (s *Service) Prepare(content []byte) (protocol.Document, error) {
	return protocol.Prepare(content, s.cfg.MaxDocumentBytes)
}

// Publish validates, hashes and stores a document idempotently.
func (s *Service) Publish(ctx context.Context, content []byte, tags []string, origin string) (PublishResult, error) {
	doc, err := s.Prepare(content)
	if err != nil {
		return PublishResult{}, err
	}
	e, created, err := s.store.Put(ctx, store.NewDocument{Document: doc, ExtraTags: protocol.NormaliseTags(tags), Origin: origin})
	if err != nil {
		return PublishResult{}, err
	}
	return PublishResult{Entry: e, Created: created}, nil
}

// Get returns one entry (content on request). A withdrawn entry comes with
// store.ErrWithdrawn.
func (s *Service) Get(ctx context.Context, d protocol.Digest, withContent bool) (store.Entry, error) {
	return s.store.Get(ctx, d, withContent)
}

// Raw returns a document's exact bytes.
func (s *Service) Raw(ctx context.Context, d protocol.Digest) ([]byte, error) {
	return s.store.Content(ctx, d)
}

// Search lists entries.
func (s *Service) Search(ctx context.Context, q store.Query) (store.Page, error) {
	return s.store.Search(ctx, q)
}

// Resolve answers a batch of hashes.
func (s *Service) Resolve(ctx context.Context, ds []protocol.Digest) ([]store.Resolution, error) {
	return s.store.Resolve(ctx, ds)
}

// Successors lists newer versions of a document.
func (s *Service) Successors(ctx context.Context, d protocol.Digest) ([]store.Entry, error) {
	return s.store.Successors(ctx, d)
}

// Withdraw tombstones a document.
func (s *Service) Withdraw(ctx context.Context, d protocol.Digest, reason string) error {
	return s.store.Withdraw(ctx, d, reason)
}

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

// PageURL is the absolute URL of a document's HTML page.
func (s *Service) PageURL(d protocol.Digest) string {
	return s.cfg.PublicURL + "/protocols/" + d.Hex()
}
