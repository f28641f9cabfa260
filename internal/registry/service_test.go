package registry

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/sqlite"
)

func newService(t *testing.T, cfg Config) *Service {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return New(st, cfg)
}

// engine is the whole store under a test's service, for arranging what
// the service itself never writes.
func engine(svc *Service) store.Store { return svc.store.(store.Store) }

// fakeUpstream answers one document, possibly lying about it.
type fakeUpstream struct {
	content []byte
	calls   int
}

func (u *fakeUpstream) Fetch(ctx context.Context, d protocol.Digest) ([]byte, string, error) {
	u.calls++
	if u.content == nil {
		return nil, "", store.ErrNotFound
	}
	return u.content, "https://upstream.test", nil
}

func TestUpstreamHookStoresVerifiedBytes(t *testing.T) {
	doc := []byte("# Mirrored\n\nFrom upstream.\n")
	sums, _ := protocol.Hash(doc)
	up := &fakeUpstream{content: doc}
	svc := newService(t, Config{Upstream: up, CacheBytes: 1 << 20})
	ctx := context.Background()

	got, err := svc.Raw(ctx, sums.SHA1)
	if err != nil || string(got) != string(doc) {
		t.Fatalf("Raw: %v %q", err, got)
	}
	e, err := svc.Get(ctx, sums.SHA1, false)
	if err != nil || e.Origin != "https://upstream.test" {
		t.Fatalf("Get: %v origin %q", err, e.Origin)
	}
	if up.calls != 1 {
		t.Errorf("upstream asked %d times, want once (stored after the first)", up.calls)
	}
}

func TestLyingUpstreamIsAMiss(t *testing.T) {
	up := &fakeUpstream{content: []byte("# Not what you asked for\n")}
	svc := newService(t, Config{Upstream: up})
	want := protocol.MustParseDigest("a9993e364706816aba3e25717850c26c9cd0d89d")
	if _, err := svc.Raw(context.Background(), want); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Raw from a lying upstream: %v, want not found", err)
	}
	if st, _ := svc.Stats(context.Background()); st.Documents != 0 {
		t.Errorf("a lying upstream's bytes were stored: %+v", st)
	}
}

func TestWithdrawEvictsCache(t *testing.T) {
	svc := newService(t, Config{CacheBytes: 1 << 20})
	ctx := context.Background()
	r, err := svc.Publish(ctx, []byte("# Cached\n"), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	d := r.Entry.Digest
	if _, err := svc.Raw(ctx, d); err != nil {
		t.Fatal(err)
	}
	if _, n := svc.CacheSize(); n != 1 {
		t.Fatalf("cache holds %d documents, want 1", n)
	}
	if err := svc.Withdraw(ctx, entity.Token{Name: "test"}, d, "test"); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Raw(ctx, d); !errors.Is(err, store.ErrWithdrawn) {
		t.Errorf("Raw after withdraw: %v", err)
	}
}

func TestRawCacheBoundsAndTTL(t *testing.T) {
	c := newRawCache(800, time.Minute)
	now := time.Unix(0, 0)
	c.now = func() time.Time { return now }
	for i := byte(0); i < 20; i++ {
		c.put(newRawDocument(protocol.Digest{i}, make([]byte, 100), entity.Lifecycle{}, ""))
	}
	if b, n := c.size(); b > 800 || n != 8 {
		t.Errorf("cache holds %d bytes in %d docs; limit 800", b, n)
	}
	if _, ok := c.get(protocol.Digest{19}); !ok {
		t.Error("newest entry evicted")
	}
	if _, ok := c.get(protocol.Digest{0}); ok {
		t.Error("oldest entry kept")
	}
	c.put(newRawDocument(protocol.Digest{99}, make([]byte, 101), entity.Lifecycle{}, "")) // more than an eighth: not cached
	if _, ok := c.get(protocol.Digest{99}); ok {
		t.Error("an oversize document was cached")
	}
	now = now.Add(2 * time.Minute)
	if _, ok := c.get(protocol.Digest{19}); ok {
		t.Error("an expired entry was served")
	}
}

func TestTokens(t *testing.T) {
	svc := newService(t, Config{})
	ctx := context.Background()
	nt, err := svc.CreateToken(ctx, "ci", []entity.Scope{entity.ScopePublish})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(nt.Secret, TokenPrefix) || len(nt.Secret) != tokenLen {
		t.Fatalf("secret %q", nt.Secret)
	}
	tok, err := svc.Authenticate(ctx, nt.Secret)
	if err != nil || tok.ID != nt.Token.ID || !tok.Has(entity.ScopePublish) || tok.Has(entity.ScopeAdmin) {
		t.Fatalf("Authenticate: %v %+v", err, tok)
	}
	wrong := nt.Secret[:len(nt.Secret)-1] + "A"
	if wrong == nt.Secret {
		wrong = nt.Secret[:len(nt.Secret)-1] + "B"
	}
	for _, bad := range []string{"", "agr_", wrong, strings.TrimPrefix(nt.Secret, TokenPrefix), nt.Secret + "x"} {
		if _, err := svc.Authenticate(ctx, bad); !errors.Is(err, store.ErrTokenUnknown) {
			t.Errorf("Authenticate(%q): %v", bad, err)
		}
	}
	if err := svc.RevokeToken(ctx, nt.Token.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Authenticate(ctx, nt.Secret); !errors.Is(err, store.ErrTokenUnknown) {
		t.Errorf("revoked token accepted: %v", err)
	}
	if _, err := ParseScopes([]string{"root"}); err == nil {
		t.Error("unknown scope accepted")
	}
}

func TestSeedExamplesOnlyWhenEmpty(t *testing.T) {
	svc := newService(t, Config{})
	ctx := context.Background()
	fsys := fstest.MapFS{"p/a.md": {Data: []byte("# A\n")}, "p/b.md": {Data: []byte("---\nname: B\n---\n")}, "p/skip.txt": {Data: []byte("x")}}
	if n, err := svc.SeedExamples(ctx, fsys, "p"); err != nil || n != 2 {
		t.Fatalf("first seed: %d %v", n, err)
	}
	if n, err := svc.SeedExamples(ctx, fsys, "p"); err != nil || n != 0 {
		t.Fatalf("second seed: %d %v", n, err)
	}
}

func TestFallbackMetadataKeepsBytes(t *testing.T) {
	svc := newService(t, Config{})
	content := []byte("no heading, just text")
	r, err := svc.PublishRequest(context.Background(), PublishRequest{Content: content, Given: protocol.Given{Title: "Given Name", Description: "Given description"}})
	if err != nil {
		t.Fatal(err)
	}
	sums, _ := protocol.Hash(content)
	if r.Entry.Digest != sums.SHA1 || r.Entry.Metadata.Title != "Given Name" {
		t.Errorf("entry %+v", r.Entry)
	}
	for _, l := range r.Entry.Lints {
		if l.Code == protocol.LintMissingTitle {
			t.Error("missing_title lint kept although a title was given")
		}
	}
}

func TestPublishingAWithdrawnDocumentIsRefused(t *testing.T) {
	svc := newService(t, Config{})
	ctx := context.Background()
	doc := []byte("---\nname: Old\ndescription: To be withdrawn.\n---\n\nBody.\n")
	res, err := svc.Publish(ctx, doc, nil, "")
	if err != nil || !res.Created {
		t.Fatalf("first publish: %v %+v", err, res)
	}
	if err := svc.Withdraw(ctx, entity.Token{Name: "test"}, res.Entry.Digest, "superseded"); err != nil {
		t.Fatal(err)
	}
	_, err = svc.Publish(ctx, doc, nil, "")
	if !errors.Is(err, store.ErrWithdrawn) {
		t.Fatalf("republish of a withdrawn document: got %v, want ErrWithdrawn", err)
	}
	if _, err := svc.Raw(ctx, res.Entry.Digest); !errors.Is(err, store.ErrWithdrawn) {
		t.Fatalf("the tombstone must stay: Raw gave %v", err)
	}
}

func TestFallbackMetadataIsCleaned(t *testing.T) {
	svc := newService(t, Config{})
	res, err := svc.PublishRequest(context.Background(), PublishRequest{
		Content: []byte("no front matter, no heading\n"),
		Given:   protocol.Given{Title: "Demo\x00 \u202eTitle\n"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Entry.Metadata.Title; strings.ContainsAny(got, "\x00\u202e\n") || !strings.Contains(got, "Demo") {
		t.Fatalf("fallback title not cleaned: %q", got)
	}
}
