package translog

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/protocol"
)

// ErrMismatch says what the registry serves contradicts its verified log:
// bytes that are not the logged ones, a status the log does not record, a
// feed record that is not the tree's. Like a fork it is proven, not a
// failure to check.
var ErrMismatch = apperr.New(apperr.Conflict, "log_mismatch", "what the registry serves contradicts its verified log")

// Proven reports whether err proves the log or the registry inconsistent
// (a fork, a failing proof against a signed checkpoint, served data that
// contradicts the log) rather than that it could not be checked.
func Proven(err error) bool {
	return errors.Is(err, agora.ErrLogFork) || errors.Is(err, agora.ErrLogNotProved) || errors.Is(err, ErrMismatch) || errors.Is(err, errAhead)
}

// Registry is what an audit reads: the log and what the registry serves
// (a *client.Client). Nothing it returns is trusted.
type Registry interface {
	agora.LogSource
	Fetch(ctx context.Context, d agora.Digest) ([]byte, error)
	Get(ctx context.Context, d agora.Digest, withContent bool) (agora.Protocol, error)
	JSON(ctx context.Context, method, path string, body []byte) (json.RawMessage, error)
}

// AuditOptions says what an audit checks besides the log's consistency.
type AuditOptions struct {
	// Hashes are checked one by one; with none, Sample random documents
	// of the log are (All: every one).
	Hashes []protocol.Digest
	Sample int
	All    bool
	// Settle is how long to wait before re-checking a document whose
	// served status is ahead of the log (a change queued, not yet
	// integrated); zero re-checks at once.
	Settle time.Duration
	// WitnessKeys and Quorum: the latest checkpoint must carry valid
	// cosignatures of Quorum of these witnesses. Too few (ErrNoQuorum) or
	// an invalid one (ErrBadCosignature) fails the audit as not checked;
	// a fork the checkpoint shows is still reported first.
	WitnessKeys []string
	Quorum      int
}

// Audit is one run of `registry verify`.
type Audit struct {
	Checkpoint agora.LogCheckpoint
	Previous   *agora.LogCheckpoint
	// Fork is set when two signed checkpoints cannot both be true.
	Fork *Fork
	// Scanned is how many records were read and checked against the tree.
	Scanned int64
	// Feed is nil when the change feed serves the tree's records.
	Feed    error
	Results []AuditResult
	// State is what to remember for the next run (unchanged on a fork).
	State State
	// Witnesses cosigned the checkpoint (with AuditOptions.WitnessKeys).
	Witnesses []string
	// signed is Checkpoint's signed note (evidence, should a fork show).
	signed []byte
}

// Fork is the evidence of a fork: two signed notes and why no proof
// reconciles them (the proof's hashes are in the error).
type Fork struct {
	Older, Newer []byte
	Err          error
}

// AuditResult is one document's outcome.
type AuditResult struct {
	Digest protocol.Digest
	// Index is the document's publish record; Status what its latest
	// log events say (active, deprecated, withdrawn).
	Index  int64
	Status string
	Record agora.LogRecord
	Err    error
}

// Exit is the audit's exit status: 0 every check passed, 1 an
// inconsistency is proven, 2 something could not be checked.
func (a Audit) Exit() int {
	if a.Fork != nil || Proven(a.Feed) {
		return 1
	}
	code := 0
	if a.Feed != nil {
		code = 2
	}
	for _, r := range a.Results {
		switch {
		case r.Err == nil:
		case Proven(r.Err):
			return 1
		default:
			code = 2
		}
	}
	return code
}

// docState is what the verified log says of one document.
type docState struct {
	index     int64 // its publish record, -1 while not seen
	publish   agora.LogRecord
	status    string          // from its latest status record
	withdrawn bool            // a withdrawal is final
	latest    agora.LogRecord // its latest status record
}

func (s *docState) expected() string {
	switch {
	case s.withdrawn:
		return "withdrawn"
	case s.status != "":
		return s.status
	}
	return "active"
}

// scanChunk is how many records one step of the scan reads (16 tiles):
// the audit's memory is this many records plus a small state per
// document checked, whatever the log's size.
const scanChunk = 16 << TileHeight

// RunAudit verifies the latest checkpoint and its consistency with the one
// remembered in st, reads every record of the tree through tiles checked
// against it (and the change feed's copy of them), and checks what the
// registry serves for the chosen documents against their records. An
// error is returned only when the audit could not start or was cut short;
// a fork is reported in Audit.Fork. st.VerifierKey must be set.
func RunAudit(ctx context.Context, reg Registry, st State, opt AuditOptions) (Audit, error) {
	v, err := agora.NewLogVerifier(reg, st.VerifierKey)
	if err != nil {
		return Audit{}, err
	}
	latest, signed, err := v.Latest(ctx)
	if err != nil {
		return Audit{}, err
	}
	a := Audit{Checkpoint: latest, State: st}
	if err := v.Consistent(ctx, latest, latest); err != nil { // an empty tree with another root
		a.Fork = &Fork{Older: signed, Newer: signed, Err: err}
		return a, nil
	}
	if st.Checkpoint != "" {
		prev, err := v.Open([]byte(st.Checkpoint))
		if err != nil {
			return Audit{}, fmt.Errorf("the remembered checkpoint does not verify with this key (was the key changed?): %w", err)
		}
		a.Previous = &prev
		if err := v.Consistent(ctx, prev, latest); err != nil {
			if errors.Is(err, agora.ErrLogFork) {
				a.Fork = &Fork{Older: []byte(st.Checkpoint), Newer: signed, Err: err}
				return a, nil
			}
			return a, err
		}
	}
	if len(opt.WitnessKeys) > 0 {
		cp, err := agora.WitnessPolicy{LogKey: st.VerifierKey, WitnessKeys: opt.WitnessKeys, Quorum: opt.Quorum}.Open(signed)
		if err != nil {
			return a, err
		}
		a.Witnesses = cp.Witnesses
	}
	a.State = State{VerifierKey: st.VerifierKey, Checkpoint: string(signed)}
	a.signed = signed
	if a.Previous != nil && a.Previous.N > latest.N {
		// A lagging replica: audit what it serves, its own tree, and
		// remember the larger one.
		a.State.Checkpoint = st.Checkpoint
	}

	docs := map[protocol.Digest]*docState{}
	for _, d := range opt.Hashes {
		docs[d] = &docState{index: -1}
	}
	sample := sampler{n: opt.Sample, all: opt.All, pick: len(opt.Hashes) == 0}
	if err := a.scan(ctx, v, reg, 0, docs, &sample); err != nil {
		return a, err
	}
	order := opt.Hashes
	if len(order) == 0 {
		order = sample.chosen
	}
	recheck := false
	for _, d := range order {
		r := a.checkDocument(ctx, v, reg, d, docs[d])
		recheck = recheck || errors.Is(r.Err, errAhead)
		a.Results = append(a.Results, r)
	}
	if !recheck {
		return a, nil
	}
	// A served status the log does not have yet may be a change still
	// queued: read the log again once, then decide.
	if err := sleep(ctx, opt.Settle); err != nil {
		return a, err
	}
	grown, grownSigned, err := v.Latest(ctx)
	if err != nil {
		return a, err
	}
	if err := v.Consistent(ctx, a.Checkpoint, grown); err != nil {
		if errors.Is(err, agora.ErrLogFork) {
			a.Fork = &Fork{Older: a.signed, Newer: grownSigned, Err: err}
			return a, nil
		}
		return a, err
	}
	if grown.N > a.Checkpoint.N {
		from := a.Checkpoint.N
		a.Checkpoint, a.signed = grown, grownSigned
		if a.Previous == nil || grown.N >= a.Previous.N {
			a.State.Checkpoint = string(grownSigned)
		}
		sample.pick = false
		if err := a.scan(ctx, v, reg, from, docs, &sample); err != nil {
			return a, err
		}
	}
	for i, r := range a.Results {
		if errors.Is(r.Err, errAhead) {
			a.Results[i] = a.checkDocument(ctx, v, reg, r.Digest, docs[r.Digest])
		}
	}
	return a, nil
}

// scan reads records [from, a.Checkpoint.N) through verified data tiles,
// compares the change feed's copy of them, and folds them into docs.
func (a *Audit) scan(ctx context.Context, v *agora.LogVerifier, reg Registry, from int64, docs map[protocol.Digest]*docState, sample *sampler) error {
	tree := a.Checkpoint.Tree
	for lo := from; lo < tree.N; lo += scanChunk {
		hi := min(lo+scanChunk, tree.N)
		texts, err := v.LogRecords(ctx, tree, lo, hi)
		if err != nil {
			return err
		}
		recs := make([]agora.LogRecord, len(texts))
		for i, text := range texts {
			if recs[i], err = agora.ParseLogRecord(text); err != nil {
				return fmt.Errorf("record %d, proved in the signed tree, is not a record: %w", lo+int64(i), err)
			}
			a.Scanned++
			d := recs[i].Digest
			s := docs[d]
			if s == nil && recs[i].Event == agora.LogEventPublish && sample.pick {
				s = sample.offer(d, docs)
			}
			if s != nil {
				s.fold(lo+int64(i), recs[i])
			}
		}
		if a.Feed == nil {
			a.Feed = checkFeed(ctx, reg, lo, recs)
		}
	}
	return nil
}

func (s *docState) fold(idx int64, r agora.LogRecord) {
	switch {
	case r.Event == agora.LogEventPublish && s.index < 0:
		s.index, s.publish = idx, r
	case r.Event == agora.LogEventWithdraw:
		s.withdrawn, s.status, s.latest = true, r.Status, r
	case r.Event != agora.LogEventPublish:
		s.status, s.latest = r.Status, r
	}
}

// sampler picks documents as the scan meets their publish records: every
// one, or n at random (a reservoir, so memory is n states).
type sampler struct {
	n      int
	all    bool
	pick   bool
	seen   int
	chosen []protocol.Digest
}

func (p *sampler) offer(d protocol.Digest, docs map[protocol.Digest]*docState) *docState {
	p.seen++
	s := &docState{index: -1}
	switch {
	case p.all || len(p.chosen) < p.n:
		p.chosen = append(p.chosen, d)
	default:
		j := rand.IntN(p.seen)
		if j >= p.n {
			return nil
		}
		delete(docs, p.chosen[j])
		p.chosen[j] = d
	}
	docs[d] = s
	return s
}

// checkFeed compares the change feed's records from index lo on with
// recs, the tree's: the feed must serve the records the tree holds.
func checkFeed(ctx context.Context, reg Registry, lo int64, recs []agora.LogRecord) error {
	for at := lo; at < lo+int64(len(recs)); {
		raw, err := reg.JSON(ctx, http.MethodGet, "/api/v1/changes?after="+strconv.FormatInt(at, 10)+"&limit="+strconv.Itoa(MaxFeedLimit), nil)
		if err != nil {
			return fmt.Errorf("reading the change feed from %d: %w", at, err)
		}
		var page Changes
		if err := json.Unmarshal(raw, &page); err != nil {
			return fmt.Errorf("the change feed from %d is not a feed answer: %w", at, err)
		}
		if len(page.Changes) == 0 {
			if page.TreeSize > at {
				return ErrMismatch.With(fmt.Sprintf("the change feed withholds record %d, which it says its tree of %d records holds", at, page.TreeSize))
			}
			return nil // a feed behind the checkpoint (another replica): nothing to compare
		}
		for _, c := range page.Changes {
			i := c.Index - lo
			if c.Index != at {
				return ErrMismatch.With(fmt.Sprintf("the change feed answered record %d where %d was asked", c.Index, at))
			}
			if i >= int64(len(recs)) {
				return nil
			}
			r := recs[i]
			want := Change{Index: c.Index, Event: r.Event, Hex: r.Digest.Hex(), Base64: r.Digest.Base64(),
				SHA256: hex.EncodeToString(r.SHA256[:]), Size: r.Size, Time: r.Time, Status: r.Status, Reason: r.Reason}
			if !c.Time.Equal(want.Time) || c.Event != want.Event || c.Hex != want.Hex || c.Base64 != want.Base64 ||
				c.SHA256 != want.SHA256 || c.Size != want.Size || c.Status != want.Status || c.Reason != want.Reason {
				return ErrMismatch.With(fmt.Sprintf("the change feed's record %d (%s %s) is not the one the signed tree holds (%s %s)", c.Index, c.Event, c.Hex, r.Event, r.Digest.Hex()))
			}
			at++
		}
	}
	return nil
}

// errAhead marks a mismatch that a change still queued could explain: the
// registry's status differs from the log's latest.
var errAhead = apperr.New(apperr.Conflict, "log_status_mismatch", "the registry's status of a document is not its log's")

// checkDocument checks one document: its publish record is proved through
// the lookup, and what the registry serves (bytes, status, publisher,
// replacement) matches the records the scan verified.
func (a *Audit) checkDocument(ctx context.Context, v *agora.LogVerifier, reg Registry, d protocol.Digest, s *docState) AuditResult {
	r := AuditResult{Digest: d, Index: -1}
	if s == nil || s.index < 0 {
		r.Err = checkUnlogged(ctx, reg, d, a.Checkpoint)
		return r
	}
	r.Index, r.Record, r.Status = s.index, s.publish, s.expected()
	p, err := v.Prove(ctx, d)
	if err != nil {
		r.Err = err
		return r
	}
	if p.Checkpoint != a.Checkpoint {
		// The lookup came with another signed tree: it must extend ours
		// (or be extended by it).
		if err := v.Consistent(ctx, a.Checkpoint, p.Checkpoint); err != nil {
			if errors.Is(err, agora.ErrLogFork) && a.Fork == nil {
				a.Fork = &Fork{Older: a.signed, Newer: p.Signed, Err: err}
			}
			r.Err = err
			return r
		}
	}
	if p.Index != s.index || string(p.Text) != string(mustFormat(s.publish)) {
		r.Err = ErrMismatch.With(fmt.Sprintf("the lookup of %s answered record %d; the log's first record of it is %d", d.Hex(), p.Index, s.index))
		return r
	}
	r.Err = checkServed(ctx, reg, d, s)
	return r
}

func mustFormat(r agora.LogRecord) []byte {
	b, _ := agora.FormatLogRecord(r)
	return b
}

// checkUnlogged: a document the verified tree has no publish record of
// must not be served.
func checkUnlogged(ctx context.Context, reg Registry, d protocol.Digest, cp agora.LogCheckpoint) error {
	_, err := reg.Fetch(ctx, d)
	switch {
	case err == nil:
		return errAhead.With(fmt.Sprintf("the registry serves %s, which its log of %d records does not hold", d.Hex(), cp.N))
	case httpStatus(err) == http.StatusNotFound || httpStatus(err) == http.StatusGone:
		return fmt.Errorf("%s is not in this registry's log of %d records (and not served): nothing to check", d.Hex(), cp.N)
	}
	return err
}

// checkServed compares the raw bytes and the metadata the registry serves
// with the document's verified records.
func checkServed(ctx context.Context, reg Registry, d protocol.Digest, s *docState) error {
	doc, err := reg.Fetch(ctx, d)
	status := httpStatus(err)
	switch {
	case errors.Is(err, agora.ErrHashMismatch), errors.Is(err, agora.ErrCollisionAttack):
		return ErrMismatch.With(fmt.Sprintf("the registry serves bytes under %s that are not that document: %v", d.Hex(), err))
	case problemCode(err) == "corrupt_document":
		// The registry found its own copy damaged and refused to serve it:
		// a logged document it can no longer serve, whatever it answers.
		return ErrMismatch.With(fmt.Sprintf("the registry reports its stored copy of %s damaged (corrupt_document): its log records a document it cannot serve", d.Hex()))
	case s.withdrawn && err == nil:
		return errAhead.With(fmt.Sprintf("the registry serves %s, which its log records withdrawn (%s)", d.Hex(), s.latest.Time.Format(time.RFC3339)))
	case s.withdrawn && (status == http.StatusGone || status == http.StatusNotFound):
		return nil
	case status == http.StatusGone:
		return errAhead.With(fmt.Sprintf("the registry answers %s withdrawn; its log records no withdrawal", d.Hex()))
	case status == http.StatusNotFound:
		return ErrMismatch.With(fmt.Sprintf("the registry does not serve %s, whose publish its log records", d.Hex()))
	case err != nil:
		return err
	}
	if sum := sha256.Sum256(doc); sum != s.publish.SHA256 || len(doc) != s.publish.Size {
		return ErrMismatch.With(fmt.Sprintf("the registry serves %d bytes with SHA-256 %x under %s; its log records %d bytes with SHA-256 %x",
			len(doc), sum, d.Hex(), s.publish.Size, s.publish.SHA256))
	}
	meta, err := reg.Get(ctx, d, false)
	if err != nil {
		return err
	}
	if meta.Status != s.expected() {
		return errAhead.With(fmt.Sprintf("the registry says %s is %s; its log says %s", d.Hex(), meta.Status, s.expected()))
	}
	if at := s.publish.Attested; at.Publisher != "" && meta.Publisher != at.Publisher {
		return ErrMismatch.With(fmt.Sprintf("the registry names %q the publisher of %s; its log attests %q", meta.Publisher, d.Hex(), at.Publisher))
	}
	if s.expected() == "deprecated" && s.latest.Attested.ReplacedBy != "" && meta.Replacement != s.latest.Attested.ReplacedBy {
		return errAhead.With(fmt.Sprintf("the registry names %q the replacement of %s; its log attests %q", meta.Replacement, d.Hex(), s.latest.Attested.ReplacedBy))
	}
	return nil
}

// problemCode is the problem code of a registry's non-2xx answer, else "".
func problemCode(err error) string {
	var re *agora.RegistryError
	if errors.As(err, &re) {
		return re.Code
	}
	return ""
}

// httpStatus is the HTTP status of a registry's non-2xx answer, else 0.
func httpStatus(err error) int {
	var re *agora.RegistryError
	if errors.As(err, &re) {
		return re.Status
	}
	return 0
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
