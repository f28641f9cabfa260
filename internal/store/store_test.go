package store

import (
	"errors"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/entity"
)

func TestTokenHas(t *testing.T) {
	publish := entity.Token{Scopes: []entity.Scope{entity.ScopePublish}}
	admin := entity.Token{Scopes: []entity.Scope{entity.ScopeAdmin}}
	none := entity.Token{}
	switch {
	case !publish.Has(entity.ScopePublish) || publish.Has(entity.ScopeAdmin):
		t.Fatal("a publish token must publish and nothing more")
	case !admin.Has(entity.ScopeAdmin) || !admin.Has(entity.ScopePublish):
		t.Fatal("an admin token implies publish")
	case none.Has(entity.ScopePublish):
		t.Fatal("a token without scopes may do nothing")
	}
}

func TestEntryWithdrawn(t *testing.T) {
	now := time.Now()
	if (entity.Entry{}).Withdrawn() || !(entity.Entry{WithdrawnAt: &now}).Withdrawn() {
		t.Fatal("Withdrawn must follow WithdrawnAt")
	}
}

// The sentinels are matched by code, so a message made specific with With
// still matches, and each maps to the kind transports turn into a status.
func TestSentinels(t *testing.T) {
	kinds := map[*apperr.Error]apperr.Kind{
		ErrNotFound: apperr.NotFound, ErrWithdrawn: apperr.Gone, ErrInvalid: apperr.Invalid,
		ErrInvalidCursor: apperr.Invalid, ErrConflict: apperr.Conflict, ErrTokenUnknown: apperr.Unauthenticated,
		ErrUnavailable: apperr.Unavailable,
	}
	for sentinel, kind := range kinds {
		if sentinel.Kind != kind {
			t.Errorf("%s has kind %v, want %v", sentinel.Code, sentinel.Kind, kind)
		}
		if !errors.Is(sentinel.With("more specific"), sentinel) {
			t.Errorf("%s.With(...) no longer matches", sentinel.Code)
		}
	}
	if errors.Is(ErrInvalidCursor, ErrInvalid) {
		t.Fatal("ErrInvalidCursor must be told apart from ErrInvalid")
	}
}
