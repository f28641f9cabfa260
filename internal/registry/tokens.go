package registry

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/store"
)

// TokenPrefix starts every API token, so a leaked token is recognisable
// (secret scanners) and a mistyped one is refused before any lookup.
const TokenPrefix = "agr_"

// tokenSecretBytes is the entropy of a token.
const tokenSecretBytes = 32

// tokenLen is the length of a well-formed token.
var tokenLen = len(TokenPrefix) + base64.RawURLEncoding.EncodedLen(tokenSecretBytes)

// touchEvery throttles last-used updates so authentication is not a write
// on every request.
const touchEvery = time.Minute

// maxTokenNameRunes caps a token's name.
const maxTokenNameRunes = 100

// ErrBadScope refuses an unknown scope name.
var ErrBadScope = apperr.New(apperr.Invalid, "invalid_scope", "a token scope is read, publish or admin")

// NewToken is a created token. Secret is shown once and never stored.
type NewToken struct {
	Token  entity.Token
	Secret string
}

// ParseScopes reads scope names ("read", "publish", "admin").
func ParseScopes(names []string) ([]entity.Scope, error) {
	var out []entity.Scope
	for _, n := range names {
		switch s := entity.Scope(strings.TrimSpace(n)); s {
		case entity.ScopeRead, entity.ScopePublish, entity.ScopeAdmin:
			out = append(out, s)
		default:
			return nil, ErrBadScope.With(fmt.Sprintf("unknown scope %q: use read, publish or admin", n))
		}
	}
	if len(out) == 0 {
		return nil, ErrBadScope.With("a token needs at least one scope: read, publish or admin")
	}
	return out, nil
}

// CreateToken makes a token of the default publisher.
func (s *Service) CreateToken(ctx context.Context, name string, scopes []entity.Scope) (NewToken, error) {
	return s.CreatePublisherToken(ctx, entity.DefaultPublisher, name, scopes)
}

// ErrReservedPublisher refuses a token for a name only the registry
// publishes as.
var ErrReservedPublisher = apperr.New(apperr.Invalid, "reserved_publisher",
	"the publisher names "+ExamplesPublisher+", "+MirrorPublisher+" and "+AnonymousPublisher+" are reserved: the registry publishes as them itself (seeded examples, mirrored documents, tokenless publishes)")

// CreatePublisherToken makes a token with a fresh random secret that
// publishes as publisher, whose account must exist.
func (s *Service) CreatePublisherToken(ctx context.Context, publisher, name string, scopes []entity.Scope) (NewToken, error) {
	return s.CreateUserToken(ctx, publisher, name, scopes, "")
}

// CreateUserToken is CreatePublisherToken recording createdBy, the
// signed-in user who made the token ("" for the command line).
func (s *Service) CreateUserToken(ctx context.Context, publisher, name string, scopes []entity.Scope, createdBy string) (NewToken, error) {
	publisher, err := entity.PublisherOr(publisher)
	if err != nil {
		return NewToken{}, err
	}
	if reserved(publisher) {
		return NewToken{}, ErrReservedPublisher
	}
	if err := s.requirePublisher(ctx, publisher); err != nil {
		return NewToken{}, err
	}
	name = strings.TrimSpace(name)
	if name == "" || len([]rune(name)) > maxTokenNameRunes {
		return NewToken{}, apperr.Newf(apperr.Invalid, "invalid_token_name", "a token name is 1 to %d characters", maxTokenNameRunes)
	}
	if err := s.refuseTakenName(ctx, name); err != nil {
		return NewToken{}, err
	}
	var raw [tokenSecretBytes]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return NewToken{}, apperr.Wrap(apperr.Internal, "internal", "cannot generate a token", err)
	}
	secret := TokenPrefix + base64.RawURLEncoding.EncodeToString(raw[:])
	t, err := s.store.CreateToken(ctx, publisher, name, scopes, sha256.Sum256([]byte(secret)), createdBy)
	if err != nil {
		return NewToken{}, err
	}
	return NewToken{Token: t, Secret: secret}, nil
}

// ErrTokenNameTaken refuses a second live token with one name, so `token
// list` and `token revoke` never leave an operator guessing which is which.
var ErrTokenNameTaken = apperr.New(apperr.Conflict, "token_name_taken", "a token that is not revoked already has this name")

// refuseTakenName checks the live tokens' names. Tokens are made by an
// operator one at a time, so the check before the insert is enough; a
// revoked token's name may be reused.
func (s *Service) refuseTakenName(ctx context.Context, name string) error {
	ts, err := s.store.ListTokens(ctx)
	if err != nil {
		return err
	}
	for _, t := range ts {
		if t.RevokedAt == nil && t.Name == name {
			return ErrTokenNameTaken.With(fmt.Sprintf("token %d is already named %q: pick another name or revoke it first (registry token revoke %d)", t.ID, name, t.ID))
		}
	}
	return nil
}

// Authenticate finds the unrevoked token whose secret this is, or returns
// store.ErrTokenUnknown. The secret is only ever handled as its SHA-256.
func (s *Service) Authenticate(ctx context.Context, secret string) (entity.Token, error) {
	if len(secret) != tokenLen || !strings.HasPrefix(secret, TokenPrefix) {
		return entity.Token{}, store.ErrTokenUnknown
	}
	h := sha256.Sum256([]byte(secret))
	t, err := s.store.TokenBySecret(ctx, h)
	if err != nil {
		return entity.Token{}, err
	}
	// The lookup is by hash already; the explicit constant-time check keeps
	// an engine bug (say, a prefix match) from ever admitting a wrong token.
	if subtle.ConstantTimeCompare(t.SecretHash[:], h[:]) != 1 || t.RevokedAt != nil {
		return entity.Token{}, store.ErrTokenUnknown
	}
	s.touch(ctx, t.ID)
	return t, nil
}

// touch records use at most once per touchEvery per token; failures are
// not the caller's problem.
func (s *Service) touch(ctx context.Context, id int64) {
	now := time.Now()
	s.touchMu.Lock()
	last, ok := s.touched[id]
	if ok && now.Sub(last) < touchEvery {
		s.touchMu.Unlock()
		return
	}
	s.touched[id] = now
	s.touchMu.Unlock()
	_ = s.store.TouchToken(ctx, id, now)
}

// ListTokens lists tokens (never secrets).
func (s *Service) ListTokens(ctx context.Context) ([]entity.Token, error) {
	return s.store.ListTokens(ctx)
}

// RevokeToken revokes a token by id.
func (s *Service) RevokeToken(ctx context.Context, id int64) error {
	return s.store.RevokeToken(ctx, id)
}

// touchState is embedded in Service.
type touchState struct {
	touchMu sync.Mutex
	touched map[int64]time.Time
}
