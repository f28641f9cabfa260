package handlerbench

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/adoption"
	"github.com/agora-registry/registry/internal/api"
	"github.com/agora-registry/registry/internal/store"
)

// BenchmarkHandlerHotRawCounting is BenchmarkHandlerHotRaw with the
// adoption counter on (a map update under a shard lock per fetch; nothing
// flushes during the run): run both in one go and compare ns/op.
//
//	go test -run '^$' -bench 'HandlerHotRaw' -benchmem -count 5 ./handler (from bench/)
func BenchmarkHandlerHotRawCounting(b *testing.B) {
	counter := adoption.New(discardSink{}, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	h, hexes, _ := seededHandler(b, api.WithAdoption(counter))
	runHandler(b, h, hexes, hotRawRequests, 200)
	if err := counter.Flush(context.Background()); err != nil {
		b.Fatal(err)
	}
}

// discardSink takes flushed counts and drops them.
type discardSink struct{}

func (discardSink) AddAdoption(context.Context, time.Time, []store.AdoptionDelta) error { return nil }
func (discardSink) RefreshAdoption(context.Context, time.Time) error                    { return nil }
