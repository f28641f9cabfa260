package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/migrate"
	"github.com/agora-registry/registry/internal/store/postgres"
	"github.com/agora-registry/registry/internal/store/storetest"
	"github.com/agora-registry/registry/internal/testing/pgtest"
)

func exec(t *testing.T, dsn, sql string, args ...any) {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), sql, args...); err != nil {
		t.Fatal(err)
	}
}

func newDoc(t *testing.T, i int) store.NewDocument {
	t.Helper()
	doc, err := protocol.Prepare(storetest.GenerateDocument(i), 0)
	if err != nil {
		t.Fatal(err)
	}
	return store.NewDocument{Document: doc}
}

// Each reads in chunks; walk more than one chunk, with imported times
// interleaved, and check the order and that nothing repeats or is lost.
func TestEachAcrossChunks(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	const n = 450
	var batch []store.NewDocument
	for i := range n {
		nd := newDoc(t, i)
		if i%3 == 0 { // an import from the distant past, far before 1900
			nd.CreatedAt = time.Date(1200+i, 1, 1, 0, 0, 0, 0, time.UTC)
		}
		batch = append(batch, nd)
	}
	if _, err := s.PutMany(ctx, batch); err != nil {
		t.Fatal(err)
	}
	var seen []entity.Entry
	if err := s.Each(ctx, func(e entity.Entry) error { seen = append(seen, e); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(seen) != n {
		t.Fatalf("Each visited %d entries, want %d", len(seen), n)
	}
	unique := map[protocol.Digest]bool{}
	for i, e := range seen {
		unique[e.Digest] = true
		if len(e.Content) != e.Size {
			t.Fatalf("entry %d: %d content bytes, size %d", i, len(e.Content), e.Size)
		}
		if i > 0 && e.CreatedAt.Before(seen[i-1].CreatedAt) {
			t.Fatalf("Each is not in creation order at %d: %v after %v", i, e.CreatedAt, seen[i-1].CreatedAt)
		}
	}
	if len(unique) != n {
		t.Fatalf("Each visited %d distinct entries, want %d", len(unique), n)
	}
}

// Overlapping batches committed concurrently must neither deadlock nor
// create a document twice.
func TestConcurrentOverlappingPutMany(t *testing.T) {
	s := openStore(t)
	const n = 300
	var docs []store.NewDocument
	for i := range n {
		docs = append(docs, newDoc(t, i))
	}
	reversed := slices.Clone(docs)
	slices.Reverse(reversed)
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		created = map[protocol.Digest]int{}
		errs    []error
	)
	for w := range 6 {
		batch := docs
		if w%2 == 1 {
			batch = reversed
		}
		wg.Go(func() {
			c, err := s.PutMany(context.Background(), batch)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			for i, ok := range c {
				if ok {
					created[batch[i].Document.Sums.SHA1]++
				}
			}
		})
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Fatalf("%d concurrent PutMany calls failed; first: %v", len(errs), errs[0])
	}
	if len(created) != n {
		t.Fatalf("%d documents reported created, want %d", len(created), n)
	}
	for d, c := range created {
		if c != 1 {
			t.Fatalf("document %s reported created %d times", d, c)
		}
	}
}

// Killed connections (a database restart or failover) surface as
// ErrUnavailable, and the store recovers by itself.
func TestConnectionLossIsUnavailableAndRecovers(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	s, err := postgres.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	e, _, err := s.Put(ctx, newDoc(t, 1))
	if err != nil {
		t.Fatal(err)
	}
	// Make sure the pool holds open connections, then kill them all.
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() { _, _, _ = s.Content(ctx, e.Digest) })
	}
	wg.Wait()
	admin, err := pgtest.AdminDSN()
	if err != nil {
		t.Fatal(err)
	}
	var dbName string
	if err := s.Pool().QueryRow(ctx, "SELECT current_database()").Scan(&dbName); err != nil {
		t.Fatal(err)
	}
	exec(t, admin, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", dbName)

	sawUnavailable := false
	for range 20 {
		_, _, err := s.Content(ctx, e.Digest)
		if err == nil {
			break
		}
		if !errors.Is(err, store.ErrUnavailable) {
			t.Fatalf("Content after connections were killed: %v, want ErrUnavailable", err)
		}
		if apperrKind := fmt.Sprint(err); !strings.Contains(apperrKind, "unavailable") {
			t.Fatalf("error message %q does not say the database is unavailable", err)
		}
		sawUnavailable = true
	}
	if !sawUnavailable {
		t.Log("the pool replaced the killed connections before any call failed")
	}
	if _, _, err := s.Content(ctx, e.Digest); err != nil {
		t.Fatalf("the store did not recover after connection loss: %v", err)
	}
}

func TestClosedStoreIsUnavailable(t *testing.T) {
	s := openStore(t)
	s.Close()
	_, _, err := s.Content(context.Background(), protocol.Digest{1})
	if !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("Content on a closed store: %v, want ErrUnavailable", err)
	}
}

func TestOpenUnreachableIsUnavailable(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// Port 1 on loopback: nothing listens there.
	_, err := postgres.Open(ctx, "postgres://postgres@127.0.0.1:1/postgres?sslmode=disable&connect_timeout=2")
	if !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("Open of an unreachable server: %v, want ErrUnavailable", err)
	}
}

func TestOpenMalformedDSN(t *testing.T) {
	_, err := postgres.Open(context.Background(), "postgres://user:s3cret@[::1/db")
	if !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("Open with a malformed DSN: %v, want ErrInvalid", err)
	}
	if strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("the error quotes the password: %v", err)
	}
}

func TestOpenRefusesDirtySchema(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	s, err := postgres.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	exec(t, dsn, "UPDATE schema_migrations SET dirty = true")
	for _, opts := range [][]postgres.Option{nil, {postgres.WithoutMigrations()}} {
		_, err = postgres.Open(context.Background(), dsn, opts...)
		if !errors.Is(err, migrate.ErrDirty) || !strings.Contains(err.Error(), "registry migrate force") {
			t.Fatalf("Open of a dirty schema: %v, want ErrDirty with repair advice", err)
		}
	}
}

func TestOpenWithoutMigrationsNeedsCurrentSchema(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	_, err := postgres.Open(context.Background(), dsn, postgres.WithoutMigrations())
	if !errors.Is(err, migrate.ErrOutdated) {
		t.Fatalf("Open WithoutMigrations of an empty database: %v, want ErrOutdated", err)
	}
	if err := migrate.Up(context.Background(), migrate.Postgres, dsn); err != nil {
		t.Fatal(err)
	}
	s, err := postgres.Open(context.Background(), dsn, postgres.WithoutMigrations())
	if err != nil {
		t.Fatalf("Open WithoutMigrations of a migrated database: %v", err)
	}
	s.Close()
}

// A name-sorted walk over long non-ASCII titles: the cursor carries the
// title key, so it must stay valid at the longest title.
func TestNameCursorWithLongUnicodeTitles(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	for i := range 5 {
		title := strings.Repeat("🌦", protocol.MaxTitleRunes-1) + fmt.Sprint(i)
		doc, err := protocol.Prepare([]byte("---\nname: "+title+"\n---\n\nBody.\n"), 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.Put(ctx, store.NewDocument{Document: doc}); err != nil {
			t.Fatal(err)
		}
	}
	q := store.Query{Sort: store.SortName, Limit: 2}
	total := 0
	for range 10 {
		p, err := s.Search(ctx, q)
		if err != nil {
			t.Fatalf("Search page after %d entries: %v", total, err)
		}
		total += len(p.Entries)
		if p.NextCursor == "" {
			break
		}
		q.Cursor = p.NextCursor
	}
	if total != 5 {
		t.Fatalf("walked %d entries, want 5", total)
	}
}

func TestPutRefusesUnpreparedDocument(t *testing.T) {
	s := openStore(t)
	_, _, err := s.Put(context.Background(), store.NewDocument{})
	if !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("Put of a zero document: %v, want ErrInvalid", err)
	}
	_, err = s.PutMany(context.Background(), []store.NewDocument{newDoc(t, 1), {}})
	if !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("PutMany with a zero document: %v, want ErrInvalid", err)
	}
	if err := s.Withdraw(context.Background(), protocol.Digest{1}, strings.Repeat("x", postgres.MaxWithdrawReasonRunes+1)); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("Withdraw with a too long reason: %v, want ErrInvalid", err)
	}
}
