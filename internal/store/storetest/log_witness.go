package storetest

import (
	"reflect"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/store"
)

// testWitnesses: witness states are stored, replaced and listed by key;
// out-of-bounds states are refused; the witness lock excludes a second
// holder (another connection: another process) until released.
func testWitnesses(t *testing.T, open Opener) {
	s := open(t)
	got, err := s.WitnessStates(ctx(t))
	noErr(t, "WitnessStates of a fresh store", err)
	if len(got) != 0 {
		t.Fatalf("fresh store has witness states %+v", got)
	}
	b := store.WitnessState{Key: "b.example+0badc0de+BA==", Size: 3}
	a := store.WitnessState{Key: "a.example+01234567+BA==", Size: 7, CosignedSize: 7, Cosignature: "— a.example AQID\n"}
	noErr(t, "SaveWitnessState b", s.SaveWitnessState(ctx(t), b))
	noErr(t, "SaveWitnessState a", s.SaveWitnessState(ctx(t), a))
	b.Size, b.CosignedSize, b.Cosignature = 9, 9, "— b.example BAUG\n"
	noErr(t, "SaveWitnessState b again", s.SaveWitnessState(ctx(t), b))
	got, err = s.WitnessStates(ctx(t))
	noErr(t, "WitnessStates", err)
	if want := []store.WitnessState{a, b}; !reflect.DeepEqual(got, want) {
		t.Fatalf("WitnessStates = %+v, want %+v", got, want)
	}
	for _, bad := range []store.WitnessState{
		{Key: ""}, {Key: "k", Size: -1}, {Key: "k", CosignedSize: -1},
		{Key: strings.Repeat("k", store.MaxWitnessKeyBytes+1)},
		{Key: "k", Cosignature: strings.Repeat("c", store.MaxWitnessCosignatureBytes+1)},
	} {
		wantErr(t, "SaveWitnessState out of bounds", s.SaveWitnessState(ctx(t), bad), store.ErrInvalid)
	}

	unlock, ok, err := s.LockWitnesses(ctx(t))
	noErr(t, "LockWitnesses", err)
	if !ok {
		t.Fatal("LockWitnesses of a free lock: not taken")
	}
	if _, ok2, err := s.LockWitnesses(ctx(t)); err != nil || ok2 {
		t.Fatalf("second LockWitnesses while held = %v, %v; want refused", ok2, err)
	}
	unlock()
	unlock2, ok, err := s.LockWitnesses(ctx(t))
	if err != nil || !ok {
		t.Fatalf("LockWitnesses after release = %v, %v", ok, err)
	}
	unlock2()
}
