package registry

import (
	"context"
	"errors"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/store"
)

// reserved reports whether only the registry publishes as name.
func reserved(name string) bool {
	return name == ExamplesPublisher || name == MirrorPublisher || name == AnonymousPublisher
}

// CreatePublisher makes a publisher account; the reserved names exist
// already and cannot be taken.
func (s *Service) CreatePublisher(ctx context.Context, name, displayName string) (entity.Publisher, error) {
	if name == "" {
		return entity.Publisher{}, entity.ErrInvalidPublisher
	}
	if reserved(name) {
		return entity.Publisher{}, ErrReservedPublisher
	}
	return s.store.CreatePublisher(ctx, entity.Publisher{Name: name, DisplayName: CleanDisplayName(displayName)})
}

// CleanDisplayName strips what a display name must not carry (control,
// ANSI-escape and bidi-override characters) and clips it.
func CleanDisplayName(name string) string {
	return clipClean(name, store.MaxDisplayNameRunes)
}

// Publisher returns an account, or store.ErrPublisherUnknown. A name
// without an account that documents carry (an import's --publisher or
// --keep-publishers) is answered as a publisher without an account (zero
// CreatedAt), so every document's publisher link leads somewhere.
func (s *Service) Publisher(ctx context.Context, name string) (entity.Publisher, error) {
	if _, err := entity.PublisherOr(name); err != nil || name == "" {
		return entity.Publisher{}, store.ErrPublisherUnknown
	}
	p, err := s.store.GetPublisher(ctx, name)
	if !errors.Is(err, store.ErrPublisherUnknown) {
		return p, err
	}
	page, cerr := s.store.Catalog(ctx, store.CatalogQuery{Publisher: name, Limit: 1})
	if cerr != nil || len(page.Entries) == 0 {
		return entity.Publisher{}, err
	}
	return entity.Publisher{Name: name}, nil
}

// ListPublishers lists accounts by name.
func (s *Service) ListPublishers(ctx context.Context) ([]entity.Publisher, error) {
	return s.store.ListPublishers(ctx)
}

// ErrNoSuchPublisher refuses a token for a publisher without an account.
var ErrNoSuchPublisher = store.ErrPublisherUnknown.With(
	"no publisher with this name: create it first (registry publisher create NAME)")

// requirePublisher checks that an account exists.
func (s *Service) requirePublisher(ctx context.Context, name string) error {
	_, err := s.store.GetPublisher(ctx, name)
	if errors.Is(err, store.ErrPublisherUnknown) {
		return ErrNoSuchPublisher
	}
	return err
}

// CanActFor reports whether tok may act for publisher: its own, or any
// with the admin scope.
func CanActFor(tok entity.Token, publisher string) bool {
	return tok.ID != 0 && (tok.Has(entity.ScopeAdmin) || tok.Publisher == publisher)
}
