package main

import "context"

// workers are serve's background loops (log integration, followers,
// webhooks, the directory, the adoption counter). stop ends them in the
// reverse order of their start and waits for each, so none outlives what
// it uses: the last started is stopped first, and the store, opened
// before all of them, closes after.
type workers struct{ stops []func() }

// start runs run in its own goroutine until its context ends or stop.
func (w *workers) start(ctx context.Context, run func(context.Context)) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); run(ctx) }()
	w.stops = append(w.stops, func() { cancel(); <-done })
}

// onStop adds a step to the shutdown, in the same reverse order.
func (w *workers) onStop(f func()) { w.stops = append(w.stops, f) }

// stop ends every worker, last started first, each waited for.
func (w *workers) stop() {
	for i := len(w.stops) - 1; i >= 0; i-- {
		w.stops[i]()
	}
	w.stops = nil
}
