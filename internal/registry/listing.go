package registry

import (
	"context"

	"github.com/agora-registry/registry/internal/store"
)

// listChunk is how many entries a listing reads from the store at a time:
// a query holds its database connection only while it reads one chunk,
// never while a slow client is being written to, and the caller buffers
// one chunk at most.
const listChunk = 256

// Listing is one page of the full listing of listed entries, oldest first
// (the paper demo's GET /). Its end is known before the first row is
// read, so the page's "next" link can precede its body.
type Listing struct {
	// Next is the position the following page starts after; nil when this
	// page is the last.
	Next *store.ListPosition

	docs           Store
	after, through *store.ListPosition
	limit          int
}

// Listing opens the page of at most limit entries after after (nil: from
// the first).
func (s *Service) Listing(ctx context.Context, after *store.ListPosition, limit int) (*Listing, error) {
	end, err := s.store.ListEnd(ctx, after, limit)
	if err != nil {
		return nil, err
	}
	return &Listing{Next: end, docs: s.store, after: after, through: end, limit: limit}, nil
}

// Each calls row for every entry of the page, in order, and flush after
// each chunk read from the store (and before the next is read).
func (l *Listing) Each(ctx context.Context, row func(store.Listed) error, flush func() error) error {
	after := l.after
	for left := l.limit; left > 0; {
		want := min(listChunk, left)
		got := 0
		var last store.Listed
		err := l.docs.List(ctx, store.ListRange{After: after, Through: l.through, Limit: want}, func(e store.Listed) error {
			got++
			last = e
			return row(e)
		})
		if err != nil {
			return err
		}
		if err := flush(); err != nil {
			return err
		}
		if got < want {
			return nil
		}
		left -= got
		p := last.Position()
		after = &p
	}
	return nil
}
