// Package follow keeps a verified replica of an upstream registry
// (`registry serve --follow URL`): it reads the upstream's transparency
// log from a stored cursor, checks each checkpoint's consistency with the
// last one and each record against the signed tree, fetches and verifies
// each new document, and replicates what the log says of the documents
// that upstream logged (publish, withdraw, deprecate, reactivate, the
// attested publisher).
//
// An error (a timeout, a 5xx, a truncated tile, a malformed answer) is
// retried with capped exponential backoff and reported. Only a fork (two
// signed checkpoints, or a signed checkpoint and a proof read from tiles
// its signer's tree authenticates, that cannot both be true) stops a
// follower; the evidence is stored, and `registry follow reset` resumes it.
package follow

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/client"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/translog"
)

// Upstream is the upstream registry as a client reads it (client.Client).
type Upstream interface {
	agora.LogSource
	Fetch(ctx context.Context, d protocol.Digest) ([]byte, error)
	WellKnown(ctx context.Context) (client.WellKnown, error)
	WaitChanges(ctx context.Context, after int64, wait time.Duration) (int64, error)
	Origin() string
}

// Local is what the follower needs of this registry (registry.Service).
type Local interface {
	Stored(ctx context.Context, d protocol.Digest) (entity.Entry, error)
	Resolve(ctx context.Context, ds []protocol.Digest) ([]store.Resolution, error)
	PublishMany(ctx context.Context, rs []registry.PublishRequest) (refused []error, err error)
	Withdraw(ctx context.Context, tok entity.Token, d protocol.Digest, reason string) error
	ReplicateStatus(ctx context.Context, d protocol.Digest, r registry.StatusRequest, actor string) (entity.Entry, error)
}

// State is where the cursor, what each upstream says of each document and
// the replicated publisher accounts live (the store).
type State interface {
	store.Follows
	GetPublisher(ctx context.Context, name string) (entity.Publisher, error)
	CreatePublisher(ctx context.Context, p entity.Publisher) (entity.Publisher, error)
	MarkVerified(ctx context.Context, name, domain string, at time.Time) error
}

// Timing of a follower; zero values get the defaults.
type Timing struct {
	Wait       time.Duration // long poll of the upstream's feed (25 s)
	MinBackoff time.Duration // first wait after a failure (1 s)
	MaxBackoff time.Duration // longest wait after failures (5 min)
	// Sleep waits d or until ctx ends (tests count the pauses instead of
	// timing them).
	Sleep func(ctx context.Context, d time.Duration)
	// Jitter returns a number in [0, 1) that spreads each backoff over
	// its upper half (math/rand/v2 by default).
	Jitter func() float64
}

// Follower follows one upstream.
type Follower struct {
	up    Upstream
	local Local
	state State
	log   *slog.Logger
	t     Timing
	peers []*Follower // the other upstreams this registry follows

	mu     sync.Mutex
	status Status
	loaded bool
	// claimed is the log size the feed last announced beyond the
	// checkpoint; lies counts announcements no checkpoint showed.
	claimed int64
	lies    int
	// pending are withdrawals deferred while another followed upstream
	// could not answer; scanned says the store's were added after a start.
	pending map[protocol.Digest]bool
	scanned bool
	// peerFailed is when each other upstream last failed to answer.
	peerFailed map[string]time.Time
	// own are the publisher accounts this follower made or confirmed, with
	// the domain last attested for each.
	own map[string]string
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
	if t.Sleep == nil {
		t.Sleep = sleep
	}
	if t.Jitter == nil {
		t.Jitter = rand.Float64
	}
	return &Follower{up: up, local: local, state: state, log: logger.With("upstream", up.Origin()), t: t,
		status: Status{Upstream: up.Origin()}, own: map[string]string{}, pending: map[protocol.Digest]bool{}, peerFailed: map[string]time.Time{}}
}

// Link lets each follower of fs ask the others' upstreams, through their
// pinned keys, whether they logged a document before it withdraws it.
func Link(fs []*Follower) {
	for _, f := range fs {
		f.peers = nil
		for _, g := range fs {
			if g != f {
				f.peers = append(f.peers, g)
			}
		}
	}
}

// Status is a follower's progress and health (metrics, GET
// /api/v1/followers).
type Status struct {
	Upstream string `json:"upstream"`
	// Applied is how many records of the upstream's log were applied;
	// Size the size of its latest verified checkpoint; Lag the
	// difference, kept while the follower is stalled or stopped.
	Applied int64 `json:"applied"`
	Size    int64 `json:"upstreamSize"`
	Lag     int64 `json:"lag"`
	Forked  bool  `json:"forked"`
	// Errors counts failed rounds since this process started; Failing
	// those since the last round that succeeded.
	Errors      int64      `json:"errors"`
	Failing     int        `json:"consecutiveErrors"`
	LastError   string     `json:"lastError,omitempty"`
	LastErrorAt *time.Time `json:"lastErrorAt,omitempty"`
	// Quarantined counts the upstream's documents whose bytes did not
	// match its records.
	Quarantined int `json:"quarantined"`
	// Deferred counts the withdrawals waiting for another followed
	// upstream's answer (the documents stay served meanwhile).
	Deferred int       `json:"deferredWithdrawals"`
	Evidence *Evidence `json:"forkEvidence,omitempty"`
}

// Status reports progress without any I/O.
func (f *Follower) Status() Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := f.status
	st.Deferred = len(f.pending)
	return st
}

// Upstream is the URL of the followed registry.
func (f *Follower) Upstream() string { return f.up.Origin() }

// Evidence is what proves a fork: two checkpoints signed by the
// upstream's key that no single append-only log can have produced.
type Evidence struct {
	Upstream string    `json:"upstream"`
	Reason   string    `json:"reason"`
	At       time.Time `json:"at"`
	// Older and Newer are the signed checkpoints (notes); their sizes
	// are repeated for reading.
	Older     string `json:"olderCheckpoint"`
	OlderSize int64  `json:"olderSize"`
	Newer     string `json:"newerCheckpoint"`
	NewerSize int64  `json:"newerSize"`
	// Proof is the consistency proof from OlderSize to NewerSize read
	// from tiles that the newer checkpoint's root authenticates, which
	// does not lead to the older root (base64 hashes; absent when the
	// sizes are equal).
	Proof []string `json:"consistencyProof,omitempty"`
}

// String is the evidence as indented JSON, for logs and the reset command.
func (e Evidence) String() string {
	b, _ := json.MarshalIndent(e, "", "  ")
	return string(b)
}

// ParseEvidence reads stored evidence (store.FollowState.Evidence).
func ParseEvidence(s string) (Evidence, error) {
	var e Evidence
	err := json.Unmarshal([]byte(s), &e)
	return e, err
}

// ForkError stops a follower: the upstream's log forked.
type ForkError struct{ Evidence Evidence }

func (e *ForkError) Error() string {
	return "the upstream's transparency log forked: " + e.Evidence.Reason
}

// Unwrap makes a ForkError agora.ErrLogFork for errors.Is.
func (e *ForkError) Unwrap() error { return agora.ErrLogFork }

// errFeedAhead is the feed announcing records no checkpoint shows.
var errFeedAhead = agora.ErrLogNotProved.With("the upstream's change feed announced records its signed checkpoint does not show")

// Run follows until ctx ends. Every failure but a fork is retried after a
// capped, jittered exponential backoff. A fork stops the follower: it
// then only rereads its stored state, every MaxBackoff, and resumes once
// an operator has cleared the fork (`registry follow reset`).
func (f *Follower) Run(ctx context.Context) {
	stopped := false
	for ctx.Err() == nil {
		err := f.Step(ctx)
		var fork *ForkError
		switch {
		case errors.As(err, &fork):
			if !stopped {
				f.log.Error("FOLLOWER STOPPED: the upstream's transparency log forked; nothing it sent after the fork is stored; "+
					"check the evidence, then resume with `registry follow reset "+f.up.Origin()+" --yes`", "evidence", fork.Evidence.String())
			}
			stopped = true
			f.t.Sleep(ctx, f.t.MaxBackoff)
		case err != nil && ctx.Err() == nil:
			stopped = false
			wait := f.failed(err)
			f.log.Warn("follower: upstream or store failed; retrying", "error", err.Error(), "retryIn", wait.String())
			f.t.Sleep(ctx, wait)
		case err == nil:
			stopped = false
			f.mu.Lock()
			f.status.Failing = 0
			f.mu.Unlock()
		}
	}
}

// failed records a failed round and returns how long to wait.
func (f *Follower) failed(err error) time.Duration {
	now := time.Now().UTC()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.status.Errors++
	f.status.Failing++
	f.status.LastError, f.status.LastErrorAt = err.Error(), &now
	return f.backoff(f.status.Failing)
}

// backoff is the wait after n failures in a row: MinBackoff doubled per
// failure up to MaxBackoff, then spread over its upper half.
func (f *Follower) backoff(n int) time.Duration {
	d := f.t.MinBackoff
	for i := 1; i < n && d < f.t.MaxBackoff; i++ {
		d *= 2
	}
	d = min(d, f.t.MaxBackoff)
	return d/2 + time.Duration(f.t.Jitter()*float64(d/2))
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
		return f.stopped(st)
	}
	f.mu.Lock()
	if f.status.Forked { // an operator reset the fork
		f.status.Forked, f.status.Evidence = false, nil
		f.log.Warn("follower: resuming an upstream whose fork an operator reset")
	}
	f.mu.Unlock()
	if err := f.retryWithdrawals(ctx); err != nil {
		return err
	}
	v, err := agora.NewLogVerifier(f.up, st.VerifierKey)
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
		if err := f.consistent(ctx, prev, st.Checkpoint, cp, signed); err != nil {
			var fork *ForkError
			if errors.As(err, &fork) {
				st.Forked, st.Evidence = true, fork.Evidence.String()
				if serr := f.state.SaveFollowState(context.WithoutCancel(ctx), st); serr != nil {
					return serr // not stopped until the evidence is stored: the next round finds the fork again
				}
				f.stopped(st)
			}
			return err
		}
		if prev.N > cp.N { // a lagging upstream replica: keep the larger tree
			cp, signed = prev, st.Checkpoint
		}
	}
	f.progress(cp.N, st.Applied)
	if st.Applied >= cp.N {
		return f.wait(ctx, st, cp, signed)
	}
	f.mu.Lock()
	f.claimed, f.lies = 0, 0
	f.mu.Unlock()
	end := min((st.Applied/256+1)*256, cp.N)
	recs, err := f.records(ctx, v, cp, st.Applied, end)
	if err != nil {
		return err
	}
	if err := f.apply(ctx, st.Applied, recs); err != nil {
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

// wait is a caught-up round: it stores the checkpoint and long-polls the
// feed. A feed that announced growth the next checkpoint did not show is
// paced with the failure backoff, growing while it keeps doing so.
func (f *Follower) wait(ctx context.Context, st store.FollowState, cp agora.LogCheckpoint, signed []byte) error {
	if !bytes.Equal(signed, st.Checkpoint) {
		st.Checkpoint = signed
		if err := f.state.SaveFollowState(ctx, st); err != nil {
			return err
		}
	}
	f.mu.Lock()
	lying := f.claimed > cp.N
	if lying {
		f.claimed = 0
		f.lies++
	}
	lies := f.lies
	f.mu.Unlock()
	if lying {
		pause := f.failed(errFeedAhead)
		pause = max(pause, f.backoff(lies))
		f.log.Warn("follower: the upstream's feed announced records its checkpoint does not show; pausing", "retryIn", pause.String())
		f.t.Sleep(ctx, pause)
		return nil
	}
	start := time.Now()
	n, err := f.up.WaitChanges(ctx, cp.N, f.t.Wait)
	if err != nil {
		return err
	}
	if n > cp.N {
		f.mu.Lock()
		f.claimed = n
		f.mu.Unlock()
		return nil
	}
	// Nothing new yet answered early (an upstream shutting down, out of
	// poll slots, or hostile): pause, so a caught-up follower never spins
	// on checkpoints and polls.
	f.mu.Lock()
	f.lies = 0
	f.mu.Unlock()
	f.t.Sleep(ctx, f.t.MinBackoff-time.Since(start))
	return nil
}

// consistent proves that the larger of two verified checkpoints extends
// the smaller. Only a contradiction between what the upstream signed is
// a *ForkError; failing to read the proof is an error, retried.
func (f *Follower) consistent(ctx context.Context, a agora.LogCheckpoint, aSigned []byte, b agora.LogCheckpoint, bSigned []byte) error {
	if a.N > b.N {
		a, aSigned, b, bSigned = b, bSigned, a, aSigned
	}
	ev := Evidence{Upstream: f.up.Origin(), At: time.Now().UTC(), Older: string(aSigned), OlderSize: a.N, Newer: string(bSigned), NewerSize: b.N}
	if a.N == b.N {
		if a.Hash != b.Hash {
			ev.Reason = fmt.Sprintf("two checkpoints of size %d have different roots (%s, %s)", a.N, a.Hash, b.Hash)
			return &ForkError{ev}
		}
		return nil
	}
	if a.N == 0 {
		// A fresh log's first checkpoint commits to no record, so every
		// tree extends it (tlog proves only n ≥ 1). Its root is not
		// checked: this registry signs zeros there, RFC 6962 the hash of
		// nothing.
		return nil
	}
	// TileHashReader checks every tile against b's signed root, so a
	// proof it returns is b's own word; one it cannot read (a failed
	// fetch, a truncated or altered tile) proves nothing either way.
	p, err := tlog.ProveTree(b.N, a.N, tlog.TileHashReader(b.Tree, tiles{ctx, f.up}))
	if err != nil {
		return agora.ErrLogNotProved.With(fmt.Sprintf("could not read the proof that the tree of size %d extends the tree of size %d: %v", b.N, a.N, err))
	}
	if err := tlog.CheckTree(p, b.N, b.Hash, a.N, a.Hash); err != nil {
		ev.Reason = fmt.Sprintf("the tree of size %d (%s) does not extend the tree of size %d (%s): %v", b.N, b.Hash, a.N, a.Hash, err)
		for _, h := range p {
			ev.Proof = append(ev.Proof, base64.StdEncoding.EncodeToString(h[:]))
		}
		return &ForkError{ev}
	}
	return nil
}

// tiles reads tiles from the upstream for tlog.TileHashReader, which
// checks each against the tree it was made for.
type tiles struct {
	ctx context.Context
	src agora.LogSource
}

func (tiles) Height() int { return translog.TileHeight }

func (r tiles) ReadTiles(ts []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(ts))
	for i, t := range ts {
		b, err := r.src.LogTile(r.ctx, t.Path())
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

func (tiles) SaveTiles([]tlog.Tile, [][]byte) {}

// stopped marks the follower stopped and returns the stored fork.
func (f *Follower) stopped(st store.FollowState) error {
	ev, err := ParseEvidence(st.Evidence)
	if err != nil || st.Evidence == "" {
		ev = Evidence{Upstream: st.Upstream, Reason: "the upstream was stopped after a fork (no evidence stored)"}
	}
	f.mu.Lock()
	f.status.Forked, f.status.Evidence = true, &ev
	f.status.Applied = st.Applied
	f.status.Size = max(f.status.Size, ev.NewerSize, ev.OlderSize)
	f.status.Lag = max(0, f.status.Size-st.Applied)
	f.mu.Unlock()
	return &ForkError{ev}
}

func (f *Follower) progress(upstream, applied int64) {
	f.mu.Lock()
	f.status.Size, f.status.Applied, f.status.Lag = upstream, applied, max(0, upstream-applied)
	f.mu.Unlock()
}

// load reads the stored state, or pins the upstream's key on first contact.
func (f *Follower) load(ctx context.Context) (store.FollowState, error) {
	f.mu.Lock()
	loaded := f.loaded
	f.mu.Unlock()
	if !loaded {
		_, n, err := f.state.FollowQuarantine(ctx, f.up.Origin(), 1)
		if err != nil {
			return store.FollowState{}, err
		}
		f.mu.Lock()
		f.status.Quarantined, f.loaded = n, true
		f.mu.Unlock()
	}
	st, err := f.state.FollowState(ctx, f.up.Origin())
	if !errors.Is(err, store.ErrNotFound) {
		if err == nil {
			f.mu.Lock()
			f.status.Applied = st.Applied
			f.mu.Unlock()
		}
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
func (f *Follower) records(ctx context.Context, v *agora.LogVerifier, cp agora.LogCheckpoint, from, to int64) ([]agora.LogRecord, error) {
	tileN := from / 256
	t := tlog.Tile{H: translog.TileHeight, L: -1, N: tileN, W: int(to - tileN*256)}
	data, err := f.up.LogTile(ctx, t.Path())
	if err != nil {
		return nil, err
	}
	texts := bytes.SplitAfter(data, []byte("\n\n"))
	if len(texts) != t.W+1 || len(texts[t.W]) != 0 {
		return nil, agora.ErrLogNotProved.With(fmt.Sprintf("data tile %s does not hold %d records", t.Path(), t.W))
	}
	hashes, err := v.RecordHashes(ctx, cp.Tree, from, to)
	if err != nil {
		return nil, err
	}
	out := make([]agora.LogRecord, 0, to-from)
	for i := from; i < to; i++ {
		text := texts[i-tileN*256]
		text = text[:len(text)-1] // the blank line after each record
		if tlog.RecordHash(text) != hashes[i-from] {
			return nil, agora.ErrLogNotProved.With(fmt.Sprintf("record %d is not the one the signed tree holds", i))
		}
		r, err := agora.ParseLogRecord(text)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// followerToken is who withdraws a document because its upstreams did (the
// document's history names it).
var followerToken = entity.Token{Name: "follower"}

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

// Report is a follower's status with its newest quarantined documents
// (GET /api/v1/followers).
type Report struct {
	Status
	QuarantinedDocs []Quarantined `json:"quarantinedDocuments"`
}

// Quarantined is a document whose bytes did not match the upstream's
// record of it.
type Quarantined struct {
	Hash   string `json:"hash"`
	Record int64  `json:"record"` // the publish record's index in the upstream's log
	Reason string `json:"reason"`
}

// Report reads the status and up to limit quarantined documents.
func (f *Follower) Report(ctx context.Context, limit int) (Report, error) {
	docs, total, err := f.state.FollowQuarantine(ctx, f.up.Origin(), limit)
	if err != nil {
		return Report{}, err
	}
	r := Report{Status: f.Status(), QuarantinedDocs: make([]Quarantined, 0, len(docs))}
	r.Quarantined = total
	for _, d := range docs {
		r.QuarantinedDocs = append(r.QuarantinedDocs, Quarantined{Hash: d.Digest.Hex(), Record: d.Index, Reason: d.Quarantine})
	}
	return r, nil
}
