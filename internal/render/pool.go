package render

import (
	"context"
	"runtime"
)

// Pool bounds how many documents render at once, so rendering can hold at
// most its share of the CPUs whatever is asked of it.
type Pool struct {
	slots chan struct{}
}

// DefaultSlots leaves half the CPUs (at least one) to everything else, raw
// fetches above all.
func DefaultSlots() int { return max(1, runtime.GOMAXPROCS(0)/2) }

// NewPool returns a pool of n slots (DefaultSlots when n <= 0).
func NewPool(n int) *Pool {
	if n <= 0 {
		n = DefaultSlots()
	}
	return &Pool{slots: make(chan struct{}, n)}
}

// Do runs work in a slot, waiting for one until ctx is done.
func (p *Pool) Do(ctx context.Context, work func()) error {
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-p.slots }()
	work()
	return nil
}
