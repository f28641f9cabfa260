package security

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store"
)

// leakyTokenStore plays an engine that forgets the "not revoked" filter of
// TokenBySecret (it returns a revoked row as found) and counts TouchToken.
type leakyTokenStore struct {
	store.Store
	touches atomic.Int64
}

func (s *leakyTokenStore) TokenBySecret(ctx context.Context, h [32]byte) (entity.Token, error) {
	t, err := s.Store.TokenBySecret(ctx, h)
	if !errors.Is(err, store.ErrTokenUnknown) {
		return t, err
	}
	toks, lerr := s.Store.ListTokens(ctx)
	if lerr != nil {
		return t, err
	}
	for _, tok := range toks {
		if tok.SecretHash == h {
			return tok, nil
		}
	}
	return t, err
}

func (s *leakyTokenStore) TouchToken(ctx context.Context, id int64, at time.Time) error {
	s.touches.Add(1)
	return s.Store.TouchToken(ctx, id, at)
}

// TestRevokedTokenRefusedEvenWhenTheStoreReturnsIt: the service checks the
// revocation itself, so an engine bug handing back a revoked row admits
// nothing.
func TestRevokedTokenRefusedEvenWhenTheStoreReturnsIt(t *testing.T) {
	ctx := context.Background()
	st := &leakyTokenStore{Store: openStore(t, "sqlite", "")}
	svc := registry.New(st, registry.Config{PublicURL: "http://127.0.0.1"})
	tok, err := svc.CreateToken(ctx, "t", []entity.Scope{entity.ScopePublish})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Authenticate(ctx, tok.Secret); err != nil {
		t.Fatal(err)
	}
	if err := svc.RevokeToken(ctx, tok.Token.ID); err != nil {
		t.Fatal(err)
	}
	if row, err := st.TokenBySecret(ctx, tok.Token.SecretHash); err != nil || row.RevokedAt == nil {
		t.Fatalf("the leaky store does not return the revoked row: %+v %v", row, err)
	}
	if _, err := svc.Authenticate(ctx, tok.Secret); !errors.Is(err, store.ErrTokenUnknown) {
		t.Fatalf("a revoked token the store returned: err %v, want ErrTokenUnknown", err)
	}
}

// TestLastUsedTouchIsThrottled: 100 authentications in a row write the
// token's last-used time once, not 100 times.
func TestLastUsedTouchIsThrottled(t *testing.T) {
	ctx := context.Background()
	st := &leakyTokenStore{Store: openStore(t, "sqlite", "")}
	svc := registry.New(st, registry.Config{PublicURL: "http://127.0.0.1"})
	tok, err := svc.CreateToken(ctx, "t", []entity.Scope{entity.ScopePublish})
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		if _, err := svc.Authenticate(ctx, tok.Secret); err != nil {
			t.Fatal(err)
		}
	}
	if n := st.touches.Load(); n != 1 {
		t.Fatalf("100 authentications touched the token %d times, want 1", n)
	}
}
