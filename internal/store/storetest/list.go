package storetest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/store"
)

// testList: the full listing is every listed entry, oldest first (creation
// time, then digest), in ranges that neither skip nor repeat, and ListEnd
// finds where a page of n ends.
func testList(t *testing.T, open Opener) {
	s := open(t)
	noRows := func(store.Listed) error { t.Fatal("a row from an empty store"); return nil }
	noErr(t, "List of an empty store", s.List(ctx(t), store.ListRange{Limit: 10}, noRows))
	end, err := s.ListEnd(ctx(t), nil, 1)
	noErr(t, "ListEnd of an empty store", err)
	if end != nil {
		t.Fatalf("ListEnd of an empty store = %+v", end)
	}

	// Creation times out of publish order (an import keeps old times),
	// two of them equal so the digest breaks the tie.
	base := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	minutes := []int{50, 10, 30, 30, 20, 40, 60, 30}
	var want []entity.Entry
	var gone entity.Entry
	for i, m := range minutes {
		nd := prepare(t, simpleDoc(fmt.Sprintf("Listed %d", i), fmt.Sprintf("Entry %d.", i), []string{"list"}, "Body."))
		nd.CreatedAt = base.Add(time.Duration(m) * time.Minute)
		e := put(t, s, nd)
		if i == 5 {
			gone = e
			continue
		}
		want = append(want, e)
	}
	noErr(t, "Withdraw", s.Withdraw(ctx(t), gone.Digest, "x"))
	slices.SortFunc(want, func(a, b entity.Entry) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return slices.Compare(a.Digest[:], b.Digest[:])
	})
	pos := func(i int) *store.ListPosition {
		return &store.ListPosition{CreatedAt: want[i].CreatedAt, Digest: want[i].Digest}
	}
	list := func(r store.ListRange) []store.Listed {
		t.Helper()
		var got []store.Listed
		noErr(t, fmt.Sprintf("List(%+v)", r), s.List(ctx(t), r, func(l store.Listed) error {
			got = append(got, l)
			return nil
		}))
		return got
	}
	check := func(what string, got []store.Listed, from, to int) {
		t.Helper()
		if len(got) != to-from {
			t.Fatalf("%s: %d rows, want entries %d to %d of %d", what, len(got), from, to, len(want))
		}
		for i, l := range got {
			e := want[from+i]
			if l.Digest != e.Digest || l.Title != e.Metadata.Title || l.Description != e.Metadata.Description || !sameTime(l.CreatedAt, e.CreatedAt) {
				t.Fatalf("%s: row %d = %+v, want %s %q %q %v", what, i, l, e.Digest, e.Metadata.Title, e.Metadata.Description, e.CreatedAt)
			}
			if l.Position() != (store.ListPosition{CreatedAt: l.CreatedAt, Digest: l.Digest}) {
				t.Fatalf("%s: Position() does not match the row", what)
			}
		}
	}
	check("everything", list(store.ListRange{Limit: store.MaxListChunk}), 0, len(want))
	check("a limit", list(store.ListRange{Limit: 3}), 0, 3)
	check("after", list(store.ListRange{After: pos(2), Limit: 2}), 3, 5)
	check("through", list(store.ListRange{Through: pos(3), Limit: 100}), 0, 4)
	check("after and through", list(store.ListRange{After: pos(1), Through: pos(4), Limit: 100}), 2, 5)
	check("after the last", list(store.ListRange{After: pos(len(want) - 1), Limit: 100}), 0, 0)
	// Chunks chained by the last row's position walk everything once.
	var walked []store.Listed
	for after := (*store.ListPosition)(nil); ; {
		chunk := list(store.ListRange{After: after, Limit: 2})
		walked = append(walked, chunk...)
		if len(chunk) < 2 {
			break
		}
		p := chunk[len(chunk)-1].Position()
		after = &p
	}
	check("chunks", walked, 0, len(want))

	for _, c := range []struct {
		after *store.ListPosition
		n     int
		want  int // index of the end, -1 for nil
	}{
		{nil, 1, 0}, {nil, 3, 2}, {nil, len(want) - 1, len(want) - 2},
		{nil, len(want), -1}, {nil, len(want) + 1, -1}, // the withdrawn entry counts for nothing
		{pos(2), 2, 4}, {pos(2), len(want) - 3, -1}, {pos(len(want) - 1), 1, -1},
	} {
		end, err := s.ListEnd(ctx(t), c.after, c.n)
		noErr(t, "ListEnd", err)
		switch {
		case c.want < 0 && end != nil:
			t.Errorf("ListEnd(%v, %d) = %+v, want nil", c.after, c.n, end)
		case c.want >= 0 && (end == nil || end.Digest != want[c.want].Digest || !sameTime(end.CreatedAt, want[c.want].CreatedAt)):
			t.Errorf("ListEnd(%v, %d) = %+v, want entry %d (%s)", c.after, c.n, end, c.want, want[c.want].Digest)
		}
	}

	wantErr(t, "List with limit 0", s.List(ctx(t), store.ListRange{}, noRows), store.ErrInvalid)
	wantErr(t, "List over the chunk cap", s.List(ctx(t), store.ListRange{Limit: store.MaxListChunk + 1}, noRows), store.ErrInvalid)
	_, err = s.ListEnd(ctx(t), nil, 0)
	wantErr(t, "ListEnd of 0", err, store.ErrInvalid)
	stop := fmt.Errorf("stop")
	if err := s.List(ctx(t), store.ListRange{Limit: 10}, func(store.Listed) error { return stop }); err != stop {
		t.Errorf("List did not return fn's error: %v", err)
	}
}
