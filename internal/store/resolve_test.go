package store

import (
	"bytes"
	"testing"

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
		{Digest: ds[1], Found: true, Title: "title 1"},
		{Digest: ds[2]},
		{Digest: ds[3], Found: true, Title: "title 1"},
		{Digest: ds[4], Found: true, Title: "title 7", Withdrawn: true},
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
