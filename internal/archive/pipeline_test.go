package archive_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/archive"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// recordingStore remembers every PutMany batch (as digests) and can refuse
// one batch as a whole, or fail for good from some batch on.
type recordingStore struct {
	nopStore
	mu        sync.Mutex
	batches   [][]protocol.Digest
	refuse    protocol.Digest // PutMany of a batch holding it fails; Put of it too
	downAfter int32           // from this PutMany call on (1-based), the store is down; 0: never
	calls     atomic.Int32
}

var errDown = apperr.New(apperr.Unavailable, "unavailable", "the database is down")

func (s *recordingStore) PutMany(ctx context.Context, docs []store.NewDocument) ([]bool, error) {
	if n := s.calls.Add(1); s.downAfter > 0 && n >= s.downAfter {
		return nil, errDown
	}
	ds := make([]protocol.Digest, len(docs))
	for i, nd := range docs {
		ds[i] = nd.Document.Sums.SHA1
		if ds[i] == s.refuse {
			return nil, errors.New("constraint violated")
		}
	}
	s.mu.Lock()
	s.batches = append(s.batches, ds)
	s.mu.Unlock()
	return s.nopStore.PutMany(ctx, docs)
}

func (s *recordingStore) Put(ctx context.Context, nd store.NewDocument) (entity.Entry, bool, error) {
	if nd.Document.Sums.SHA1 == s.refuse {
		return entity.Entry{}, false, errors.New("constraint violated")
	}
	created, err := s.nopStore.PutMany(ctx, []store.NewDocument{nd})
	if err != nil {
		return entity.Entry{}, false, err
	}
	return entity.Entry{}, created[0], nil
}

func newRecordingStore() *recordingStore {
	return &recordingStore{nopStore: nopStore{seen: map[protocol.Digest]bool{}}}
}

// mixedDir writes n documents, every seventh invalid and every eleventh a
// copy of an earlier one, named so that walk order is index order.
func mixedDir(t *testing.T, n int) string {
	dir := t.TempDir()
	for i := range n {
		content := fmt.Sprintf("# Document %d\n\nbody %d\n", i, i)
		switch {
		case i%7 == 3:
			content = "# bad \xff\n"
		case i%11 == 5:
			content = fmt.Sprintf("# Document %d\n\nbody %d\n", i-5, i-5)
		}
		writeFile(t, filepath.Join(dir, fmt.Sprintf("%05d.md", i)), content)
	}
	return dir
}

// The report and the batches depend on the input only: many workers and
// concurrent writers give what one worker and one writer give, failures
// listed in file order.
func TestParallelImportIsDeterministic(t *testing.T) {
	dir := mixedDir(t, 500)
	run := func(workers, writers int) (archive.Report, [][]protocol.Digest) {
		st := newRecordingStore()
		rep, err := archive.ImportDir(context.Background(), st, dir, archive.Limits{BatchDocuments: 16, Workers: workers, Writers: writers})
		if err != nil {
			t.Fatal(err)
		}
		return rep, st.batches
	}
	wantRep, wantBatches := run(1, 1)
	bad := (500 - 3 + 6) / 7 // i%7 == 3
	if wantRep.Failed != bad || wantRep.New+wantRep.Existing != 500-bad || len(wantRep.Errors) != bad {
		t.Fatalf("report %+v", wantRep)
	}
	for i, e := range wantRep.Errors {
		if want := filepath.Join(dir, fmt.Sprintf("%05d.md", 7*i+3)); e.Entry != want {
			t.Fatalf("error %d names %s, want %s", i, e.Entry, want)
		}
	}
	for range 5 {
		rep, batches := run(8, 1)
		if !reflect.DeepEqual(rep, wantRep) || !reflect.DeepEqual(batches, wantBatches) {
			t.Fatalf("8 workers, 1 writer: report or batches differ")
		}
		rep, _ = run(8, 3)
		if !reflect.DeepEqual(rep, wantRep) {
			t.Fatalf("8 workers, 3 writers: report %+v, want %+v", rep, wantRep)
		}
	}
}

// A batch the store refuses is retried one document at a time: only the
// bad document is lost, and it is reported by its file name.
func TestRefusedBatchCostsOnlyTheBadDocument(t *testing.T) {
	dir := t.TempDir()
	for i := range 40 {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("%02d.md", i)), fmt.Sprintf("# Doc %d\n", i))
	}
	st := newRecordingStore()
	st.refuse = digest(t, []byte("# Doc 17\n"))
	rep, err := archive.ImportDir(context.Background(), st, dir, archive.Limits{BatchDocuments: 8, Workers: 4, Writers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if rep.New != 39 || rep.Failed != 1 || rep.Errors[0].Entry != filepath.Join(dir, "17.md") {
		t.Fatalf("report %+v", rep)
	}
}

// A store that goes down stops the import with its error, without hanging,
// and the report counts only what was stored.
func TestStoreDownStopsTheImport(t *testing.T) {
	dir := mixedDir(t, 300)
	for _, writers := range []int{1, 2} {
		st := newRecordingStore()
		st.downAfter = 3
		rep, err := archive.ImportDir(context.Background(), st, dir, archive.Limits{BatchDocuments: 10, Workers: 4, Writers: writers})
		if !errors.Is(err, errDown) {
			t.Fatalf("%d writers: err = %v", writers, err)
		}
		if stored := len(st.seen); rep.New != stored {
			t.Fatalf("%d writers: report counts %d new, the store holds %d", writers, rep.New, stored)
		}
	}
}

func TestCancelledImportStops(t *testing.T) {
	dir := mixedDir(t, 200)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := archive.ImportDir(ctx, newRecordingStore(), dir, archive.Limits{BatchDocuments: 10})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

// racingStore aborts the second of two overlapping PutMany calls, the way
// PostgreSQL aborts one of two transactions that wait on each other's rows.
type racingStore struct {
	nopStore
	inFlight atomic.Int32
	aborted  atomic.Int32
	second   chan struct{} // closed when a call found another in flight
	once     sync.Once
}

var errDeadlock = apperr.New(apperr.Unavailable, "unavailable", "deadlock detected")

func (s *racingStore) PutMany(ctx context.Context, docs []store.NewDocument) ([]bool, error) {
	if s.inFlight.Add(1) > 1 {
		s.inFlight.Add(-1)
		s.aborted.Add(1)
		s.once.Do(func() { close(s.second) })
		return nil, errDeadlock
	}
	defer s.inFlight.Add(-1)
	select { // the first call waits for a second to race it
	case <-s.second:
	case <-time.After(2 * time.Second):
	}
	return s.nopStore.PutMany(ctx, docs)
}

// A batch that loses a race with a concurrent batch is written again alone:
// nothing is lost and the import does not stop.
func TestBatchLosingARaceIsWrittenAgainAlone(t *testing.T) {
	dir := mixedDir(t, 200)
	want, err := archive.ImportDir(context.Background(), newRecordingStore(), dir, archive.Limits{BatchDocuments: 10, Workers: 1, Writers: 1})
	if err != nil {
		t.Fatal(err)
	}
	st := &racingStore{nopStore: nopStore{seen: map[protocol.Digest]bool{}}, second: make(chan struct{})}
	rep, err := archive.ImportDir(context.Background(), st, dir, archive.Limits{BatchDocuments: 10, Writers: 2})
	if err != nil {
		t.Fatalf("err = %v", err)
	}
	if st.aborted.Load() == 0 {
		t.Fatal("no batch lost a race: the test did not test anything")
	}
	if !reflect.DeepEqual(rep, want) {
		t.Fatalf("report %+v, want %+v", rep, want)
	}
}

// partlyStoringStore refuses every batch (so each is put one by one) and
// is unavailable for its fifth Put: the failing batch has stored some of
// its documents already.
type partlyStoringStore struct {
	nopStore
	puts atomic.Int32
}

func (s *partlyStoringStore) PutMany(context.Context, []store.NewDocument) ([]bool, error) {
	return nil, apperr.New(apperr.Invalid, "invalid", "refused as a batch")
}

func (s *partlyStoringStore) Put(ctx context.Context, nd store.NewDocument) (entity.Entry, bool, error) {
	if s.puts.Add(1) == 5 {
		return entity.Entry{}, false, errDeadlock
	}
	created, err := s.nopStore.PutMany(ctx, []store.NewDocument{nd})
	return entity.Entry{}, created[0], err
}

// A batch that failed after storing part of itself is not written again:
// its stored documents would be reported as existing instead of new.
func TestPartlyStoredBatchIsNotWrittenAgain(t *testing.T) {
	st := &partlyStoringStore{nopStore: nopStore{seen: map[protocol.Digest]bool{}}}
	rep, err := archive.ImportDir(context.Background(), st, mixedDir(t, 60), archive.Limits{BatchDocuments: 10, Writers: 2})
	if !errors.Is(err, errDeadlock) {
		t.Fatalf("err = %v, want the unavailable store's error", err)
	}
	if rep.New != len(st.seen) {
		t.Errorf("report: %d new, %d existing; the store holds %d documents, all new", rep.New, rep.Existing, len(st.seen))
	}
}
