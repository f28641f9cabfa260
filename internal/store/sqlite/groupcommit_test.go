package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// queuePuts starts one Put per document while the test holds the writer,
// waits until all are queued, then lets them commit: the first to get the
// writer commits them as one batch.
func queuePuts(t *testing.T, s *Store, docs []store.NewDocument) (entries []entity.Entry, created []bool, errs []error) {
	t.Helper()
	entries, created, errs = make([]entity.Entry, len(docs)), make([]bool, len(docs)), make([]error, len(docs))
	s.writeMu.Lock()
	var wg sync.WaitGroup
	for i, nd := range docs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			entries[i], created[i], errs[i] = s.Put(context.Background(), nd)
		}()
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		s.puts.mu.Lock()
		n := len(s.puts.waiting)
		s.puts.mu.Unlock()
		if n == len(docs) {
			break
		}
		if time.Now().After(deadline) {
			s.writeMu.Unlock()
			t.Fatalf("%d of %d Puts queued", n, len(docs))
		}
		time.Sleep(time.Millisecond)
	}
	s.writeMu.Unlock()
	wg.Wait()
	return entries, created, errs
}

func groupDoc(t *testing.T, title string) store.NewDocument {
	t.Helper()
	doc, err := protocol.Prepare([]byte(fmt.Sprintf("---\nname: %s\ndescription: grouped\n---\n\nBody of %s.\n", title, title)), 0)
	if err != nil {
		t.Fatal(err)
	}
	return store.NewDocument{Document: doc}
}

func openGroupStore(t *testing.T) *Store {
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "registry.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestQueuedPutsCommitTogether(t *testing.T) {
	s := openGroupStore(t)
	var docs []store.NewDocument
	for i := range 20 {
		docs = append(docs, groupDoc(t, fmt.Sprintf("doc %d", i)))
	}
	docs = append(docs, docs[3]) // the same document twice in one batch
	entries, created, errs := queuePuts(t, s, docs)
	times := map[time.Time]int{}
	for i := range docs {
		if errs[i] != nil {
			t.Fatalf("Put %d: %v", i, errs[i])
		}
		if want := i != 3 && i != 20; want && !created[i] {
			t.Errorf("Put %d: created = false for a new document", i)
		}
		if entries[i].Digest != docs[i].Document.Sums.SHA1 || entries[i].Metadata.Title != docs[i].Document.Metadata.Title {
			t.Errorf("Put %d answered the entry of %s %q", i, entries[i].Digest.Hex(), entries[i].Metadata.Title)
		}
		if i < 20 {
			times[entries[i].CreatedAt]++
		}
	}
	// Goroutines queue in any order: one of the two Puts of the repeated
	// document creates it, the other finds it.
	if created[3] == created[20] {
		t.Errorf("repeated document: created %v and %v, want exactly one", created[3], created[20])
	}
	if !entries[20].CreatedAt.Equal(entries[3].CreatedAt) {
		t.Errorf("the repeated Puts answered different entries")
	}
	if len(times) != 20 {
		t.Errorf("%d distinct creation times for 20 documents committed together", len(times))
	}
	if st, err := s.Stats(context.Background()); err != nil || st.Documents != 20 {
		t.Errorf("Stats = %+v, %v; want 20 documents", st, err)
	}
	page, err := s.Search(context.Background(), store.Query{Text: "grouped", Limit: 50})
	if err != nil || len(page.Entries) != 20 {
		t.Errorf("search finds %d of the 20 grouped documents (%v)", len(page.Entries), err)
	}
}

// A batch whose transaction fails is tried one Put at a time: only the
// document that fails gets the error.
func TestAFailingPutFailsOnlyItself(t *testing.T) {
	s := openGroupStore(t)
	if err := s.ExecWrite(context.Background(), `CREATE TEMP TRIGGER poison BEFORE INSERT ON main.documents
		WHEN NEW.title = 'poison' BEGIN SELECT RAISE(FAIL, 'poisoned document'); END`); err != nil {
		t.Fatal(err)
	}
	docs := []store.NewDocument{groupDoc(t, "good one"), groupDoc(t, "poison"), groupDoc(t, "good two")}
	_, created, errs := queuePuts(t, s, docs)
	if errs[1] == nil || !strings.Contains(errs[1].Error(), "poisoned") || created[1] {
		t.Errorf("the poisoned Put: created %v, %v; want only its own error", created[1], errs[1])
	}
	for _, i := range []int{0, 2} {
		if errs[i] != nil || !created[i] {
			t.Errorf("Put %d beside the poisoned one: created %v, %v", i, created[i], errs[i])
		}
	}
	if st, err := s.Stats(context.Background()); err != nil || st.Documents != 2 {
		t.Errorf("Stats = %+v, %v; want the 2 good documents", st, err)
	}
}

// More Puts queued than one batch holds are committed in several batches.
func TestMoreQueuedPutsThanOneBatchHolds(t *testing.T) {
	s := openGroupStore(t)
	var docs []store.NewDocument
	for i := range maxGroupedPuts + 6 {
		docs = append(docs, groupDoc(t, fmt.Sprintf("many %d", i)))
	}
	_, created, errs := queuePuts(t, s, docs)
	for i := range docs {
		if errs[i] != nil || !created[i] {
			t.Fatalf("Put %d of %d: created %v, %v", i, len(docs), created[i], errs[i])
		}
	}
	if st, err := s.Stats(context.Background()); err != nil || st.Documents != len(docs) {
		t.Errorf("Stats = %+v, %v; want %d documents", st, err, len(docs))
	}
}
