package store

import (
	"errors"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/apperr"
)

func TestTokenHas(t *testing.T) {
	publish := Token{Scopes: []Scope{ScopePublish}}
	admin := Token{Scopes: []Scope{ScopeAdmin}}
	none := Token{}
	switch {
	case !publish.Has(ScopePublish) || publish.Has(ScopeAdmin):
		t.Fatal("a publish token must publish and nothing more")
	case !admin.Has(ScopeAdmin) || !admin.Has(ScopePublish):
		t.Fatal("an admin token implies publish")
	case none.Has(ScopePublish):
		t.Fatal("a token without scopes may do nothing")
	}
}

func TestEntryWithdrawn(t *testing.T) {
	now := time.Now()
	if (Entry{}).Withdrawn() || !(Entry{WithdrawnAt: &now}).Withdrawn() {
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
