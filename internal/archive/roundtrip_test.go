package archive_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/archive"
	"github.com/agora-registry/registry/internal/store"
)

func importBytes(t testing.TB, st store.Store, b []byte, lim archive.Limits) archive.Report {
	t.Helper()
	rep, err := archive.ImportArchive(context.Background(), st, bytes.NewReader(b), lim)
	if err != nil {
		t.Fatalf("import: %v (report %+v)", err, rep)
	}
	return rep
}

// restore is how a backup of this registry is loaded: publishers and
// lifecycles kept.
var restore = archive.Limits{KeepPublishers: true, KeepLifecycle: true}

// roundTrip exports src, restores it into dst, and checks that dst now
// holds exactly what src holds, that a second import changes nothing, and
// that exporting dst gives the same documents back.
func roundTrip(t *testing.T, src, dst store.Store) {
	seed(t, src)
	want := snapshot(t, src)
	if len(want) != 6 {
		t.Fatalf("seeded %d documents", len(want))
	}
	arc := export(t, src)

	rep := importBytes(t, dst, arc, restore)
	if rep.New != 6 || rep.Existing != 0 || rep.Withdrawn != 2 || rep.Failed != 0 || len(rep.Warnings) != 0 || rep.LifecycleRestored != 2 {
		t.Fatalf("first import: %+v", rep)
	}
	compareSnapshots(t, want, snapshot(t, dst))

	rep = importBytes(t, dst, arc, restore)
	if rep.New != 0 || rep.Existing != 6 || rep.Withdrawn != 0 || rep.Failed != 0 {
		t.Fatalf("second import is not a no-op: %+v", rep)
	}
	compareSnapshots(t, want, snapshot(t, dst))

	// And back: the second engine's export carries the same documents.
	again := openSQLite(t)
	importBytes(t, again, export(t, dst), restore)
	compareSnapshots(t, want, snapshot(t, again))
}

func TestRoundTripSQLiteToSQLite(t *testing.T) {
	roundTrip(t, openSQLite(t), openSQLite(t))
}

func TestWithdrawnStaysWithdrawnAndSearchSkipsIt(t *testing.T) {
	src, dst := openSQLite(t), openSQLite(t)
	seed(t, src)
	importBytes(t, dst, export(t, src), archive.Limits{})
	st, _ := dst.Stats(context.Background())
	if st.Documents != 4 || st.Withdrawn != 2 {
		t.Fatalf("stats after import: %+v", st)
	}
	page, err := dst.Search(context.Background(), store.Query{Text: "withdrawn"})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Entries) != 0 {
		t.Fatalf("a withdrawn document is listed: %+v", page.Entries[0].Metadata.Title)
	}
}

// An archive's tombstone for a document stored here live leaves it live
// (an import never changes an entry that exists), with a warning, unless
// ApplyWithdrawals is given.
func TestImportLeavesALiveDocumentLive(t *testing.T) {
	src, dst := openSQLite(t), openSQLite(t)
	ctx := context.Background()
	doc := prepare(t, "# Soon gone\n\nwill be withdrawn at the source\n")
	for _, st := range []store.Store{src, dst} {
		if _, _, err := st.Put(ctx, store.NewDocument{Document: doc}); err != nil {
			t.Fatal(err)
		}
	}
	if err := src.Withdraw(ctx, doc.Sums.SHA1, "superseded"); err != nil {
		t.Fatal(err)
	}
	arc := export(t, src)
	rep := importBytes(t, dst, arc, archive.Limits{})
	if rep.Existing != 1 || rep.Withdrawn != 0 || rep.WithdrawalsSkipped != 1 || len(rep.Warnings) != 1 ||
		!strings.Contains(rep.Warnings[0], "--apply-withdrawals") {
		t.Fatalf("report %+v", rep)
	}
	if _, err := dst.Get(ctx, doc.Sums.SHA1, false); err != nil {
		t.Fatalf("the import withdrew a live document: %v", err)
	}

	rep = importBytes(t, dst, arc, archive.Limits{ApplyWithdrawals: true})
	if rep.Existing != 1 || rep.Withdrawn != 1 {
		t.Fatalf("report with ApplyWithdrawals %+v", rep)
	}
	e, err := dst.Get(ctx, doc.Sums.SHA1, false)
	if !errors.Is(err, store.ErrWithdrawn) || e.WithdrawReason != "superseded" {
		t.Fatalf("not withdrawn: %v %q", err, e.WithdrawReason)
	}
	if rep := importBytes(t, dst, arc, archive.Limits{ApplyWithdrawals: true}); rep.Withdrawn != 0 {
		t.Fatalf("withdrawn twice: %+v", rep)
	}
}

func TestExportOfEmptyStoreImports(t *testing.T) {
	src, dst := openSQLite(t), openSQLite(t)
	rep := importBytes(t, dst, export(t, src), archive.Limits{})
	if rep.New+rep.Existing+rep.Failed != 0 || len(rep.Warnings) != 0 {
		t.Fatalf("report %+v", rep)
	}
}

// Small batches force many PutMany calls, with duplicates across and
// within batches.
func TestImportInSmallBatches(t *testing.T) {
	dst := openSQLite(t)
	var entries []tarEntry
	for i := range 25 {
		entries = append(entries, docEntry(t, "# Doc "+string(rune('A'+i))+"\n"))
	}
	entries = append(entries, entries[0], entries[1], entries[24])
	rep := importBytes(t, dst, buildTar(t, true, entries...), archive.Limits{BatchDocuments: 4})
	if rep.New != 25 || rep.Existing != 3 || rep.Failed != 0 {
		t.Fatalf("report %+v", rep)
	}
	for d, e := range snapshot(t, dst) {
		if e.Origin != archive.ImportOrigin {
			t.Fatalf("%s origin %q", d.Hex(), e.Origin)
		}
	}
}
