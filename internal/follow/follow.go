// Package follow keeps a verified replica of an upstream registry
// (`registry serve --follow URL`): it reads the upstream's transparency
// log from a stored cursor, checks each checkpoint's consistency with the
// last one and each record against the signed tree, fetches and verifies
// each new document, and applies withdrawals only to documents that came
// from that upstream. An upstream whose log forks is stopped for good.
package follow

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/client"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/translog"
)

// Upstream is the upstream registry as a client reads it (client.Client).
type Upstream interface {
	translog.Source
	Fetch(ctx context.Context, d protocol.Digest) ([]byte, error)
	WellKnown(ctx context.Context) (client.WellKnown, error)
	WaitChanges(ctx context.Context, after int64, wait time.Duration) (int64, error)
	Origin() string
}

// Local is what the follower needs of this registry (registry.Service).
type Local interface {
	Stored(ctx context.Context, d protocol.Digest) (store.Entry, error)
	Resolve(ctx context.Context, ds []protocol.Digest) ([]store.Resolution, error)
	PublishMany(ctx context.Context, rs []registry.PublishRequest) (refused []error, err error)
	Withdraw(ctx context.Context, tok store.Token, d protocol.Digest, reason string) error
}

// State is where the cursor lives (the store).
type State interface {
	store.Follows
}

// Timing of a follower; zero values get the defaults.
type Timing struct {
	Wait       time.Duration // long poll of the upstream's feed (25 s)
	MinBackoff time.Duration // first wait after a failure (1 s)
	MaxBackoff time.Duration // longest wait after failures (5 min)
}

// Follower follows one upstream.
type Follower struct {
	up    Upstream
	local Local
	state State
	log   *slog.Logger
	t     Timing

	mu       sync.Mutex
	lag      int64
	forked   bool
	upstream int64
}

// New returns a follower of up into local.
func New(up Upstream, local Local, state State, logger *slog.Logger, t Timing) *Follower {
	if logger == nil {
		logger = slog.Default()
	}
	if t.Wait <= 0 {
		t.Wait = 25 * time.Second
	}
	if t.MinBackoff <= 0 {
		t.MinBackoff = time.Second
	}
	if t.MaxBackoff <= 0 {
		t.MaxBackoff = 5 * time.Minute
	}
	return &Follower{up: up, local: local, state: state, log: logger.With("upstream", up.Origin()), t: t}
}

// Status is a follower's progress, for metrics.
type Status struct {
	Upstream string
	Lag      int64 // records of the upstream's latest checkpoint not applied yet
	Forked   bool
}

// Status reports progress without any I/O.
func (f *Follower) Status() Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	return Status{Upstream: f.up.Origin(), Lag: f.lag, Forked: f.forked}
}

// Run follows until ctx ends or the upstream forks, backing off while
// the upstream (or this database) fails.
func (f *Follower) Run(ctx context.Context) {
	backoff := f.t.MinBackoff
	for ctx.Err() == nil {
		err := f.Step(ctx)
		switch {
		case errors.Is(err, translog.ErrFork):
			f.mu.Lock()
			f.forked = true
			f.mu.Unlock()
			f.log.Error("FOLLOWER STOPPED: the upstream's transparency log forked; nothing it sent after the fork is stored", "error", err.Error())
			return
		case err != nil && ctx.Err() == nil:
			f.log.Warn("follower: upstream or store failed; backing off", "error", err.Error(), "retryIn", backoff.String())
			sleep(ctx, backoff)
			backoff = min(2*backoff, f.t.MaxBackoff)
		default:
			backoff = f.t.MinBackoff
		}
	}
}

// Step does one round: verify the latest checkpoint, then apply at most
// one tile (256 records) of new records, or wait for the upstream's feed
// to grow when there are none.
func (f *Follower) Step(ctx context.Context) error {
	st, err := f.load(ctx)
	if err != nil {
		return err
	}
	if st.Forked {
		return translog.ErrFork.With("this upstream was stopped after a fork; see docs/operations.md to resume it")
	}
	v, err := translog.NewVerifier(f.up, st.VerifierKey)
	if err != nil {
		return err
	}
	cp, signed, err := v.Latest(ctx)
	if err != nil {
		return err
	}
	if len(st.Checkpoint) > 0 {
		prev, err := v.Open(st.Checkpoint)
		if err != nil {
			return err
		}
		if err := v.Consistent(ctx, prev, cp); err != nil {
			if errors.Is(err, translog.ErrFork) {
				st.Forked = true
				_ = f.state.SaveFollowState(context.WithoutCancel(ctx), st)
			}
			return err
		}
		if prev.N > cp.N { // a lagging upstream replica: keep the larger tree
			cp, signed = prev, st.Checkpoint
		}
	}
	f.progress(cp.N, st.Applied)
	if st.Applied >= cp.N {
		if !bytes.Equal(signed, st.Checkpoint) {
			st.Checkpoint = signed
			if err := f.state.SaveFollowState(ctx, st); err != nil {
				return err
			}
		}
		start := time.Now()
		n, err := f.up.WaitChanges(ctx, cp.N, f.t.Wait)
		if err == nil && n <= cp.N {
			// Nothing new yet answered early (an upstream shutting down, out
			// of poll slots, or hostile): pause, so a caught-up follower
			// never spins on checkpoints and polls.
			sleep(ctx, f.t.MinBackoff-time.Since(start))
		}
		return err
	}
	end := min((st.Applied/256+1)*256, cp.N)
	recs, err := f.records(ctx, v, cp, st.Applied, end)
	if err != nil {
		return err
	}
	if err := f.apply(ctx, recs); err != nil {
		return err
	}
	// The cursor is saved after the page's writes: a crash in between
	// replays the page, which stores nothing twice (see apply).
	st.Applied, st.Checkpoint = end, signed
	if err := f.state.SaveFollowState(ctx, st); err != nil {
		return err
	}
	f.progress(cp.N, end)
	return nil
}

func (f *Follower) progress(upstream, applied int64) {
	f.mu.Lock()
	f.upstream, f.lag = upstream, upstream-applied
	f.mu.Unlock()
}

// load reads the stored state, or pins the upstream's key on first contact.
func (f *Follower) load(ctx context.Context) (store.FollowState, error) {
	st, err := f.state.FollowState(ctx, f.up.Origin())
	if !errors.Is(err, store.ErrNotFound) {
		return st, err
	}
	wk, err := f.up.WellKnown(ctx)
	if err != nil {
		return st, err
	}
	if wk.Log == nil || wk.Log.VerifierKey == "" {
		return st, apperr.New(apperr.Invalid, "upstream_without_log", "the upstream announces no transparency log; use --upstreams (pull-through) for it")
	}
	f.log.Info("follower: pinned the upstream's log key on first contact", "verifierKey", wk.Log.VerifierKey)
	st = store.FollowState{Upstream: f.up.Origin(), VerifierKey: wk.Log.VerifierKey, Checkpoint: []byte{}}
	return st, f.state.SaveFollowState(ctx, st)
}

// records reads records [from, to) (within one data tile) and checks each
// against the verified tree.
func (f *Follower) records(ctx context.Context, v *translog.Verifier, cp translog.Checkpoint, from, to int64) ([]translog.Record, error) {
	tileN := from / 256
	t := tlog.Tile{H: translog.TileHeight, L: -1, N: tileN, W: int(to - tileN*256)}
	data, err := f.up.LogTile(ctx, t.Path())
	if err != nil {
		return nil, err
	}
	texts := bytes.SplitAfter(data, []byte("\n\n"))
	if len(texts) != t.W+1 || len(texts[t.W]) != 0 {
		return nil, translog.ErrNotProved.With(fmt.Sprintf("data tile %s does not hold %d records", t.Path(), t.W))
	}
	hashes, err := v.RecordHashes(ctx, cp.Tree, from, to)
	if err != nil {
		return nil, err
	}
	out := make([]translog.Record, 0, to-from)
	for i := from; i < to; i++ {
		text := texts[i-tileN*256]
		text = text[:len(text)-1] // the blank line after each record
		if tlog.RecordHash(text) != hashes[i-from] {
			return nil, translog.ErrNotProved.With(fmt.Sprintf("record %d is not the one the signed tree holds", i))
		}
		r, err := translog.ParseRecord(text)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// followerToken is who withdraws a document because its upstream did (the
// document's history names it).
var followerToken = store.Token{Name: "follower"}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
