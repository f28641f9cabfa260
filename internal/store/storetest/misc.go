package storetest

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/store"
)

func testTags(t *testing.T, open Opener) {
	s := open(t)
	tags, err := s.Tags(ctx(t), 10)
	noErr(t, "Tags of an empty store", err)
	if len(tags) != 0 {
		t.Fatalf("Tags of an empty store = %v", tags)
	}
	putText(t, s, simpleDoc("T1", "x", []string{"xray", "yankee", "zulu"}, "Body."))
	putText(t, s, simpleDoc("T2", "x", []string{"xray", "yankee"}, "Body."))
	putText(t, s, simpleDoc("T3", "x", []string{"xray"}, "Body."), "extra-tag")
	gone := putText(t, s, simpleDoc("T4", "x", []string{"xray", "whiskey", "zulu"}, "Body."))
	noErr(t, "Withdraw", s.Withdraw(ctx(t), gone.Digest, "x"))

	tags, err = s.Tags(ctx(t), 10)
	noErr(t, "Tags", err)
	got := fmt.Sprint(tags)
	top := fmt.Sprint(tags[:2])
	if len(tags) != 4 || top != fmt.Sprint([]store.TagCount{{Tag: "xray", Count: 3}, {Tag: "yankee", Count: 2}}) {
		t.Fatalf("Tags = %v, want xray 3, yankee 2, then extra-tag 1 and zulu 1", got)
	}
	rest := []string{tags[2].Tag, tags[3].Tag}
	slices.Sort(rest)
	if !slices.Equal(rest, []string{"extra-tag", "zulu"}) || tags[2].Count != 1 || tags[3].Count != 1 {
		t.Fatalf("Tags = %v, want extra-tag 1 and zulu 1 last (whiskey only on a withdrawn entry)", got)
	}
	tags, err = s.Tags(ctx(t), 2)
	noErr(t, "Tags with a limit", err)
	if fmt.Sprint(tags) != top {
		t.Fatalf("Tags(2) = %v, want %s", tags, top)
	}
}

func testStats(t *testing.T, open Opener) {
	s := open(t)
	st, err := s.Stats(ctx(t))
	noErr(t, "Stats of an empty store", err)
	if st != (store.Stats{}) {
		t.Fatalf("Stats of an empty store = %+v", st)
	}
	putText(t, s, simpleDoc("S1", "x", []string{"one", "two"}, "Body."))
	putText(t, s, simpleDoc("S2", "x", []string{"two"}, "Body."))
	gone := putText(t, s, simpleDoc("S3", "x", []string{"three"}, "Body."))
	noErr(t, "Withdraw", s.Withdraw(ctx(t), gone.Digest, "x"))
	st, err = s.Stats(ctx(t))
	noErr(t, "Stats", err)
	if want := (store.Stats{Documents: 2, Withdrawn: 1, Tags: 2}); st != want {
		t.Fatalf("Stats = %+v, want %+v", st, want)
	}
}

func testEach(t *testing.T, open Opener) {
	s := open(t)
	var stored []entity.Entry
	var contents [][]byte
	for i := range 5 {
		nd := prepare(t, simpleDoc(fmt.Sprintf("Each %d", i), "export", []string{"each"}, "Body."))
		stored = append(stored, put(t, s, nd))
		contents = append(contents, nd.Document.Content)
	}
	noErr(t, "Withdraw", s.Withdraw(ctx(t), stored[1].Digest, "x"))
	stored[1] = mustGetAny(t, s, stored[1])

	var seen []entity.Entry
	noErr(t, "Each", s.Each(ctx(t), func(e entity.Entry) error {
		seen = append(seen, e)
		return nil
	}))
	if len(seen) != len(stored) {
		t.Fatalf("Each visited %d entries, want %d (withdrawn included)", len(seen), len(stored))
	}
	for i, e := range seen {
		sameEntry(t, fmt.Sprintf("Each entry %d", i), e, stored[i])
		if !bytes.Equal(e.Content, contents[i]) {
			t.Fatalf("Each entry %d has other content", i)
		}
	}
	stop := errors.New("stop here")
	calls := 0
	err := s.Each(ctx(t), func(entity.Entry) error {
		calls++
		return stop
	})
	if !errors.Is(err, stop) || calls != 1 {
		t.Fatalf("Each after fn failed: err %v after %d calls; want fn's error after 1 call", err, calls)
	}
}

// mustGetAny reads an entry that may be withdrawn.
func mustGetAny(t testing.TB, s store.Store, e entity.Entry) entity.Entry {
	t.Helper()
	got, err := s.Get(ctx(t), e.Digest, false)
	if err != nil && !errors.Is(err, store.ErrWithdrawn) {
		t.Fatalf("Get: %v", err)
	}
	return got
}

func testTokens(t *testing.T, open Opener) {
	s := open(t)
	secretA := sha256.Sum256([]byte("secret a"))
	secretB := sha256.Sum256([]byte("secret b"))
	a, err := s.CreateToken(ctx(t), "", "ci publisher", []entity.Scope{entity.ScopePublish}, secretA, "")
	noErr(t, "CreateToken", err)
	if a.ID == 0 || a.Name != "ci publisher" || a.Publisher != entity.DefaultPublisher || !slices.Equal(a.Scopes, []entity.Scope{entity.ScopePublish}) ||
		a.SecretHash != secretA || a.CreatedAt.IsZero() || a.LastUsedAt != nil || a.RevokedAt != nil {
		t.Fatalf("CreateToken returned %+v", a)
	}
	b, err := s.CreateToken(ctx(t), "acme-labs", "admin", []entity.Scope{entity.ScopeAdmin, entity.ScopePublish}, secretB, "")
	noErr(t, "CreateToken", err)
	if b.ID == a.ID {
		t.Fatal("two tokens share an id")
	}
	_, err = s.CreateToken(ctx(t), "", "copy", []entity.Scope{entity.ScopePublish}, secretA, "")
	wantErr(t, "CreateToken with a used secret", err, store.ErrConflict)
	for _, bad := range []string{"Acme", "-acme", "a", "acme labs", "acme/../x", strings.Repeat("a", 40)} {
		_, err = s.CreateToken(ctx(t), bad, "bad", []entity.Scope{entity.ScopePublish}, sha256.Sum256([]byte(bad)), "")
		wantErr(t, "CreateToken for publisher "+bad, err, entity.ErrInvalidPublisher)
	}

	got, err := s.TokenBySecret(ctx(t), secretB)
	noErr(t, "TokenBySecret", err)
	if got.ID != b.ID || got.Name != "admin" || got.Publisher != "acme-labs" || !slices.Equal(got.Scopes, b.Scopes) || !sameTime(got.CreatedAt, b.CreatedAt) {
		t.Fatalf("TokenBySecret = %+v, want %+v", got, b)
	}
	_, err = s.TokenBySecret(ctx(t), sha256.Sum256([]byte("unknown")))
	wantErr(t, "TokenBySecret of an unknown secret", err, store.ErrTokenUnknown)

	at := time.Date(2030, 1, 2, 3, 4, 5, 678901000, time.UTC)
	noErr(t, "TouchToken", s.TouchToken(ctx(t), a.ID, at))
	got, err = s.TokenBySecret(ctx(t), secretA)
	noErr(t, "TokenBySecret after TouchToken", err)
	if got.LastUsedAt == nil || !sameTime(*got.LastUsedAt, at) {
		t.Fatalf("LastUsedAt = %v, want %v", got.LastUsedAt, at)
	}

	noErr(t, "RevokeToken", s.RevokeToken(ctx(t), a.ID))
	_, err = s.TokenBySecret(ctx(t), secretA)
	wantErr(t, "TokenBySecret of a revoked token", err, store.ErrTokenUnknown)
	wantErr(t, "RevokeToken of an unknown id", s.RevokeToken(ctx(t), a.ID+b.ID+1000), store.ErrNotFound)

	list, err := s.ListTokens(ctx(t))
	noErr(t, "ListTokens", err)
	if len(list) != 2 {
		t.Fatalf("ListTokens returned %d tokens, want 2 (revoked ones included)", len(list))
	}
	for _, tok := range list {
		switch tok.ID {
		case a.ID:
			if tok.RevokedAt == nil || tok.LastUsedAt == nil || tok.Name != "ci publisher" {
				t.Fatalf("listed revoked token = %+v", tok)
			}
		case b.ID:
			if tok.RevokedAt != nil || tok.SecretHash != secretB {
				t.Fatalf("listed token = %+v", tok)
			}
		default:
			t.Fatalf("ListTokens returned an unknown token %+v", tok)
		}
	}
}

func testSessions(t *testing.T, open Opener) {
	s := open(t)
	now := time.Date(2031, 5, 6, 7, 8, 9, 0, time.UTC)
	live := store.Session{IDHash: sha256.Sum256([]byte("live")), Subject: "sub-1", Email: "ann@example.com",
		Admin: true, Publishers: []string{"acme", "beta"}, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
	noErr(t, "CreateSession", s.CreateSession(ctx(t), live))
	wantErr(t, "CreateSession with a used id", s.CreateSession(ctx(t), live), store.ErrConflict)
	got, err := s.SessionByID(ctx(t), live.IDHash, now.Add(time.Minute))
	noErr(t, "SessionByID", err)
	if got.Subject != live.Subject || got.Email != live.Email || !got.Admin || !slices.Equal(got.Publishers, live.Publishers) ||
		!sameTime(got.CreatedAt, live.CreatedAt) || !sameTime(got.ExpiresAt, live.ExpiresAt) || got.IDHash != live.IDHash {
		t.Fatalf("SessionByID = %+v, want %+v", got, live)
	}
	_, err = s.SessionByID(ctx(t), live.IDHash, live.ExpiresAt)
	wantErr(t, "SessionByID at its expiry", err, store.ErrNotFound)
	_, err = s.SessionByID(ctx(t), sha256.Sum256([]byte("unknown")), now)
	wantErr(t, "SessionByID of an unknown id", err, store.ErrNotFound)

	// A session created after live expired deletes live's row.
	later := store.Session{IDHash: sha256.Sum256([]byte("later")), Subject: "sub-2", Email: "bob@example.com",
		CreatedAt: live.ExpiresAt.Add(time.Second), ExpiresAt: live.ExpiresAt.Add(time.Hour)}
	noErr(t, "CreateSession after an expiry", s.CreateSession(ctx(t), later))
	_, err = s.SessionByID(ctx(t), live.IDHash, now)
	wantErr(t, "SessionByID of a purged session", err, store.ErrNotFound)
	got, err = s.SessionByID(ctx(t), later.IDHash, later.CreatedAt)
	noErr(t, "SessionByID without roles", err)
	if got.Admin || len(got.Publishers) != 0 {
		t.Fatalf("a session without roles came back with %+v", got)
	}
	noErr(t, "DeleteSession", s.DeleteSession(ctx(t), later.IDHash))
	_, err = s.SessionByID(ctx(t), later.IDHash, later.CreatedAt)
	wantErr(t, "SessionByID after DeleteSession", err, store.ErrNotFound)
	noErr(t, "DeleteSession of an unknown id", s.DeleteSession(ctx(t), later.IDHash))

	// Tokens record who made them in the browser, and take the read scope.
	tok, err := s.CreateToken(ctx(t), "", "reader", []entity.Scope{entity.ScopeRead}, sha256.Sum256([]byte("reader")), "ann@example.com")
	noErr(t, "CreateToken with read and a creator", err)
	got2, err := s.TokenBySecret(ctx(t), tok.SecretHash)
	noErr(t, "TokenBySecret", err)
	if got2.CreatedBy != "ann@example.com" || !got2.Has(entity.ScopeRead) || got2.Has(entity.ScopePublish) {
		t.Fatalf("a read token made by ann = %+v", got2)
	}
}
