package store

import (
	"bytes"
	"errors"
	"testing"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
)

func TestResolveBatchProbesByDigestAndAnswersInTheOrderAsked(t *testing.T) {
	ds := []protocol.Digest{{9}, {1}, {5}, {1}, {7}}
	b := NewResolveBatch(ds)
	if b.Len() != len(ds) {
		t.Fatalf("Len %d", b.Len())
	}
	for i := 1; i < b.Len(); i++ {
		if bytes.Compare(b.Probe(i - 1)[:], b.Probe(i)[:]) > 0 {
			t.Fatalf("probe %d (%x) comes after probe %d (%x)", i-1, b.Probe(i - 1)[0], i, b.Probe(i)[0])
		}
	}
	// An engine finds every probe whose digest starts with 1 or 7.
	for i := range b.Len() {
		if d := b.Probe(i); d[0] == 1 || d[0] == 7 {
			if err := b.Found(int64(i), "title "+string('0'+rune(d[0])), d[0] == 7); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := []Resolution{
		{Digest: ds[0]},
		{Digest: ds[1], Found: true, Title: "title 1", Status: entity.StatusActive},
		{Digest: ds[2]},
		{Digest: ds[3], Found: true, Title: "title 1", Status: entity.StatusActive},
		{Digest: ds[4], Found: true, Title: "title 7", Withdrawn: true, Status: entity.StatusWithdrawn},
	}
	got := b.Answers()
	if len(got) != len(want) {
		t.Fatalf("%d answers", len(got))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("answer %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestResolveBatchRefusesRowsOutsideTheBatch(t *testing.T) {
	b := NewResolveBatch([]protocol.Digest{{1}, {2}})
	for _, i := range []int64{-1, 2, 1 << 40} {
		if err := b.Found(i, "x", false); err == nil {
			t.Errorf("Found(%d) accepted", i)
		}
	}
	if got := NewResolveBatch(nil).Answers(); got == nil || len(got) != 0 {
		t.Errorf("empty batch answers %v, want an empty slice", got)
	}
}

// fakeRows serves (probe, title, withdrawn) rows the way a driver does.
type fakeRows struct {
	rows    [][3]any
	scanErr error
	err     error
}

func (r *fakeRows) Next() bool { return len(r.rows) > 0 }
func (r *fakeRows) Err() error { return r.err }
func (r *fakeRows) Scan(dest ...any) error {
	if r.scanErr != nil {
		return r.scanErr
	}
	row := r.rows[0]
	r.rows = r.rows[1:]
	*dest[0].(*int64), *dest[1].(*string), *dest[2].(*bool) = row[0].(int64), row[1].(string), row[2].(bool)
	*dest[3].(*string), *dest[4].(*string), *dest[5].(*[]byte), *dest[6].(*string) = "active", "", nil, "default"
	return nil
}

func TestResolveBatchReadRowsCountsFromTheEnginesFirstProbe(t *testing.T) {
	a, b := protocol.Digest{2}, protocol.Digest{1}
	batch := NewResolveBatch([]protocol.Digest{a, b})
	// Ordinals from 1: probe 1 is b (smaller digest), probe 2 is a.
	if err := batch.ReadRows(&fakeRows{rows: [][3]any{{int64(2), "A", true}}}, 1); err != nil {
		t.Fatal(err)
	}
	got := batch.Answers()
	if !got[0].Found || got[0].Title != "A" || !got[0].Withdrawn || got[1].Found {
		t.Fatalf("answers = %+v, want only a found (title A, withdrawn)", got)
	}
	if err := batch.ReadRows(&fakeRows{rows: [][3]any{{int64(2), "x", false}}}, 0); err == nil {
		t.Error("a probe index past the batch was accepted")
	}
	scanErr, rowsErr := errors.New("scan"), errors.New("rows")
	if err := batch.ReadRows(&fakeRows{rows: [][3]any{{int64(0), "", false}}, scanErr: scanErr}, 0); !errors.Is(err, scanErr) {
		t.Errorf("scan error = %v, want %v", err, scanErr)
	}
	if err := batch.ReadRows(&fakeRows{err: rowsErr}, 0); !errors.Is(err, rowsErr) {
		t.Errorf("rows error = %v, want %v", err, rowsErr)
	}
}

// Found is FoundWith for an active document.
func (b ResolveBatch) Found(i int64, title string, withdrawn bool) error {
	return b.FoundWith(i, Resolution{Title: title, Withdrawn: withdrawn, Status: entity.StatusActive})
}
