package store

import (
	"errors"
	"testing"

	"github.com/agora-registry/registry/internal/adoption/sketch"
)

// A day row's clients: merged as a union with its sketch; added to a count
// whose sketch was dropped or is corrupt (so one bad row cannot fail every
// later batch); a corrupt sketch to add fails with ErrInvalid.
func TestStoredClientsMerge(t *testing.T) {
	three, five := sketch.Of([]uint64{1, 2, 3}), sketch.Of([]uint64{3, 4, 5, 6, 7})
	for _, c := range []struct {
		name string
		sc   StoredClients
		add  []byte
		want int64
		kept bool // a sketch is stored
	}{
		{"new row", StoredClients{}, three, 3, true},
		{"union", StoredClients{Exists: true, Clients: 3, Sketch: three}, five, 7, true},
		{"no clients yet", StoredClients{Exists: true}, five, 5, true},
		{"sketch dropped", StoredClients{Exists: true, Clients: 3}, five, 8, false},
		{"sketch corrupt", StoredClients{Exists: true, Clients: 3, Sketch: []byte{9}}, five, 8, false},
	} {
		n, sk, err := c.sc.Merge(c.add)
		if err != nil || n != c.want || (sk != nil) != c.kept {
			t.Errorf("%s: %d, sketch kept %v, %v; want %d, %v", c.name, n, sk != nil, err, c.want, c.kept)
		}
	}
	if _, _, err := (StoredClients{}).Merge([]byte{1, 2}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("a corrupt sketch to add: %v", err)
	}
}
