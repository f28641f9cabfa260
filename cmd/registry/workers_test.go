package main

import (
	"context"
	"slices"
	"sync"
	"testing"
)

// TestWorkersStopInReverseAndWait: stop ends the last started first and
// returns only after each has returned, including one whose context
// outlives the caller's (the adoption counter's last flush).
func TestWorkersStopInReverseAndWait(t *testing.T) {
	var (
		mu    sync.Mutex
		ended []string
	)
	note := func(name string) {
		mu.Lock()
		ended = append(ended, name)
		mu.Unlock()
	}
	ctx, cancel := context.WithCancel(context.Background())
	var w workers
	for _, name := range []string{"log", "followers", "hooks"} {
		w.start(ctx, func(ctx context.Context) { <-ctx.Done(); note(name) })
	}
	w.onStop(func() { note("directory closed") })
	w.start(context.WithoutCancel(ctx), func(ctx context.Context) { <-ctx.Done(); note("counter") })
	cancel() // a signal: the first three end on their own, in any order
	w.stop()
	if i, j := slices.Index(ended, "counter"), slices.Index(ended, "directory closed"); len(ended) != 5 || i < 0 || j < 0 || i > j {
		t.Fatalf("ended %q: want every worker waited for, the counter (started last) stopped before the directory closes", ended)
	}
}
