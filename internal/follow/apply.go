package follow

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"regexp"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store"
)

// fetchers bounds the documents fetched from one upstream at once.
const fetchers = 8

// apply applies one page of verified records, the first at index first:
// the documents its publishes name that are not stored here are fetched
// concurrently, checked against their records and stored in one
// transaction per maxBatchBytes; then each record is applied in order to
// what this upstream's log says of its document (store.FollowDoc), and
// each document's status here is reconciled with what every upstream that
// logged it says. A document stored here already, whatever its origin, is
// never re-imported (so follower chains cannot loop, and a page replayed
// after a failure stores nothing twice).
func (f *Follower) apply(ctx context.Context, first int64, recs []agora.LogRecord) error {
	missing, ds, before, err := f.missing(ctx, recs)
	if err != nil {
		return err
	}
	quarantined := map[protocol.Digest]string{}
	for len(missing) > 0 {
		n := batchOf(missing)
		if err := f.fetchAndStore(ctx, missing[:n], quarantined); err != nil {
			return err
		}
		missing = missing[n:]
	}
	// What every upstream says of the page's documents: read once,
	// changed record by record, saved in one transaction.
	rows, err := f.state.FollowDocs(ctx, ds)
	if err != nil {
		return err
	}
	p := page{rows: map[protocol.Digest][]store.FollowDoc{}, dirty: map[protocol.Digest]bool{}, touched: map[protocol.Digest]bool{}, before: before}
	for _, r := range rows {
		p.rows[r.Digest] = append(p.rows[r.Digest], r)
	}
	for i, r := range recs {
		var err error
		if r.Event == agora.LogEventPublish {
			err = f.logged(ctx, &p, first+int64(i), r, quarantined[r.Digest])
		} else {
			err = f.changed(ctx, &p, r)
		}
		if err != nil {
			return err
		}
	}
	var save []store.FollowDoc
	for _, d := range ds {
		if p.dirty[d] {
			if i := f.mine(p.rows[d]); i >= 0 {
				save = append(save, p.rows[d][i])
			}
		}
	}
	if err := f.state.SaveFollowDocs(ctx, save); err != nil {
		return err
	}
	if len(quarantined) > 0 {
		_, n, err := f.state.FollowQuarantine(ctx, f.up.Origin(), 1)
		if err != nil {
			return err
		}
		f.mu.Lock()
		f.status.Quarantined = n // counted by the store: a replayed page counts once
		f.mu.Unlock()
	}
	for _, d := range ds {
		if p.touched[d] {
			if err := f.reconcileOrDefer(ctx, d, p.rows[d]); err != nil {
				return err
			}
		}
	}
	return nil
}

// errPeerUnanswered is a withdrawal that waits for another followed
// upstream's answer.
var errPeerUnanswered = apperr.New(apperr.Unavailable, "follow_peer_unanswered",
	"a withdrawal waits: another followed upstream could not say whether it logged the document")

// reconcileOrDefer reconciles d; a withdrawal waiting for another
// upstream's answer is deferred (the document stays served, the error is
// reported) instead of stalling every later record.
func (f *Follower) reconcileOrDefer(ctx context.Context, d protocol.Digest, rows []store.FollowDoc) error {
	err := f.reconcile(ctx, d, rows)
	f.mu.Lock()
	defer f.mu.Unlock()
	if errors.Is(err, errPeerUnanswered) {
		f.pending[d] = true // counted in Status().Deferred, not as a failed round
		now := time.Now().UTC()
		f.status.LastError, f.status.LastErrorAt = err.Error(), &now
		return nil
	}
	if err == nil {
		delete(f.pending, d)
	} else {
		// Its rows are saved already, so a replayed page would not touch
		// it again: the retry round reconciles it.
		f.pending[d] = true
	}
	return err
}

// maxRetriedWithdrawals bounds the deferred withdrawals retried per round.
const maxRetriedWithdrawals = 100

// retryWithdrawals retries deferred withdrawals: those of this process,
// and after a start those the store says this upstream's log made and
// this registry has not (store.FollowWithdrawn).
func (f *Follower) retryWithdrawals(ctx context.Context) error {
	f.mu.Lock()
	scanned := f.scanned
	f.mu.Unlock()
	if !scanned {
		ds, err := f.state.FollowWithdrawn(ctx, f.up.Origin(), store.MaxFollowQuarantine)
		if err != nil {
			return err
		}
		f.mu.Lock()
		for _, d := range ds {
			f.pending[d] = true
		}
		f.scanned = true
		f.mu.Unlock()
	}
	f.mu.Lock()
	var ds []protocol.Digest
	for d := range f.pending {
		if len(ds) == maxRetriedWithdrawals {
			break
		}
		ds = append(ds, d)
	}
	f.mu.Unlock()
	if len(ds) == 0 {
		return nil
	}
	rows, err := f.state.FollowDocs(ctx, ds)
	if err != nil {
		return err
	}
	by := map[protocol.Digest][]store.FollowDoc{}
	for _, r := range rows {
		by[r.Digest] = append(by[r.Digest], r)
	}
	for _, d := range ds {
		if err := f.reconcileOrDefer(ctx, d, by[d]); err != nil {
			return err
		}
	}
	return nil
}

// page is what a page's records change: each document's rows, which of
// this upstream's to save, the documents to reconcile, and the published
// documents that were stored here before the page.
type page struct {
	rows    map[protocol.Digest][]store.FollowDoc
	dirty   map[protocol.Digest]bool
	touched map[protocol.Digest]bool
	before  map[protocol.Digest]bool
}

// maxBatchBytes bounds the documents held and stored at once, as an
// import's batches are bounded (archive.DefaultBatchBytes).
const maxBatchBytes = 16 << 20

// batchOf is how many of rs (at least one) fit in maxBatchBytes by their
// records' sizes, which each fetched document must match.
func batchOf(rs []agora.LogRecord) int {
	total := 0
	for i, r := range rs {
		total += r.Size
		if total > maxBatchBytes && i > 0 {
			return i
		}
	}
	return len(rs)
}

// fetchAndStore fetches rs concurrently and stores those to replicate in
// one transaction; those whose bytes do not match their records are
// noted in quarantined instead.
func (f *Follower) fetchAndStore(ctx context.Context, rs []agora.LogRecord, quarantined map[protocol.Digest]string) error {
	contents := make([][]byte, len(rs))
	bad := make([]string, len(rs))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(fetchers)
	for i, r := range rs {
		g.Go(func() (err error) {
			contents[i], bad[i], err = f.fetch(gctx, r)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	var (
		reqs []registry.PublishRequest
		hex  []string
	)
	for i, c := range contents {
		if bad[i] != "" {
			quarantined[rs[i].Digest] = bad[i]
		}
		if c == nil {
			continue
		}
		publisher, err := f.publisher(ctx, rs[i].Attested)
		if err != nil {
			return err
		}
		reqs = append(reqs, registry.PublishRequest{Content: c, Origin: f.up.Origin(), Publisher: publisher})
		hex = append(hex, rs[i].Digest.Hex())
	}
	return f.store(ctx, reqs, hex)
}

// store stores a page's fetched documents in one transaction. Should the
// store refuse the batch as a whole, each is stored alone, so that one
// refused document cannot block every record behind it.
func (f *Follower) store(ctx context.Context, reqs []registry.PublishRequest, hex []string) error {
	if len(reqs) == 0 {
		return nil
	}
	refused, err := f.local.PublishMany(ctx, reqs)
	if k := apperr.KindOf(err); err != nil && (k == apperr.Invalid || k == apperr.TooLarge) {
		if len(reqs) > 1 {
			for i := range reqs {
				if err := f.store(ctx, reqs[i:i+1], hex[i:i+1]); err != nil {
					return err
				}
			}
			return nil
		}
		refused, err = []error{err}, nil
	}
	if err != nil {
		return err
	}
	for i, err := range refused {
		if err != nil {
			// This registry's rules refuse it; retrying would block
			// every later record behind it.
			f.log.Warn("follower: a document this registry refuses is not replicated", "hash", hex[i], "error", err.Error())
		}
	}
	return nil
}

// missing returns the page's publish records, one per document, whose
// documents are not stored here, every document the page names (at most
// 256, within store.MaxResolve), and those of its publishes stored here.
func (f *Follower) missing(ctx context.Context, recs []agora.LogRecord) (out []agora.LogRecord, all []protocol.Digest, before map[protocol.Digest]bool, err error) {
	seen := make(map[protocol.Digest]bool)
	var pubs []agora.LogRecord
	var ds []protocol.Digest
	before = map[protocol.Digest]bool{}
	for _, r := range recs {
		if !seen[r.Digest] {
			seen[r.Digest] = true
			all = append(all, r.Digest)
		}
	}
	clear(seen)
	for _, r := range recs {
		if r.Event == agora.LogEventPublish && !seen[r.Digest] {
			seen[r.Digest] = true
			pubs = append(pubs, r)
			ds = append(ds, r.Digest)
		}
	}
	for i := 0; i < len(ds); i += store.MaxResolve {
		res, err := f.local.Resolve(ctx, ds[i:min(len(ds), i+store.MaxResolve)])
		if err != nil {
			return nil, nil, nil, err
		}
		for j, r := range res {
			if r.Found {
				before[r.Digest] = true
			} else {
				out = append(out, pubs[i+j])
			}
		}
	}
	return out, all, before, nil
}

// fetch returns a published document's bytes once they match its record,
// or nil for one not to replicate; quarantine says why bytes the upstream
// served were refused. Failures to fetch are errors (retried).
func (f *Follower) fetch(ctx context.Context, r agora.LogRecord) (content []byte, quarantine string, err error) {
	content, err = f.up.Fetch(ctx, r.Digest)
	switch apperr.KindOf(err) {
	case apperr.Gone, apperr.NotFound:
		return nil, "", nil // withdrawn upstream since: its withdrawal record follows
	case apperr.TooLarge:
		f.log.Warn("follower: a document larger than --max-document-bytes is not replicated", "hash", r.Digest.Hex())
		return nil, "", nil
	}
	switch {
	case errors.Is(err, protocol.ErrHashMismatch), errors.Is(err, protocol.ErrCollisionAttack):
		quarantine = "the upstream served bytes whose SHA-1 is not the record's: " + err.Error()
	case err != nil:
		return nil, "", err
	case len(content) != r.Size || sha256.Sum256(content) != r.SHA256:
		quarantine = fmt.Sprintf("the upstream served %d bytes that are not the %d bytes (SHA-256 %x) its log records", len(content), r.Size, r.SHA256)
	default:
		return content, "", nil
	}
	f.log.Warn("follower: QUARANTINED a document whose bytes do not match the upstream's log; later records go on", "hash", r.Digest.Hex(), "reason", quarantine)
	return nil, quarantine, nil
}

// mine is the index of this upstream's row among rows, or -1.
func (f *Follower) mine(rows []store.FollowDoc) int {
	for i, r := range rows {
		if r.Upstream == f.up.Origin() {
			return i
		}
	}
	return -1
}

// set stores this upstream's row of a document in the page.
func (p *page) set(f *Follower, fd store.FollowDoc) {
	rows := p.rows[fd.Digest]
	if i := f.mine(rows); i >= 0 {
		rows[i] = fd
	} else {
		p.rows[fd.Digest] = append(rows, fd)
	}
	p.dirty[fd.Digest] = true
}

// logged records that this upstream logged a document (its publish
// record at index idx). The document's status is reconciled when it was
// stored here before the page: one stored now is active, as its new row
// says, which no other row can outrank.
func (f *Follower) logged(ctx context.Context, p *page, idx int64, r agora.LogRecord, quarantine string) error {
	rows := p.rows[r.Digest]
	fd := store.FollowDoc{Upstream: f.up.Origin(), Digest: r.Digest, Status: entity.StatusActive}
	if i := f.mine(rows); i >= 0 {
		fd = rows[i] // a replayed page leaves a later status alone
	}
	fd.Index = idx
	fd.Publisher, fd.PublisherDisplayName, fd.PublisherDomain = r.Attested.Publisher, r.Attested.PublisherDisplayName, r.Attested.PublisherDomain
	fd.Quarantine = quarantine // a replay that fetched good bytes clears it
	if p.before[r.Digest] {
		local, err := f.local.Stored(ctx, r.Digest)
		if err != nil && !errors.Is(err, store.ErrWithdrawn) && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		if err == nil && (local.SHA256 != r.SHA256 || local.Size != r.Size) {
			// The SHA-1 is stored here with other bytes: this record is
			// not about them, and its events must not reach them.
			fd.Quarantine = fmt.Sprintf("the record's SHA-256 %x is not that of the document stored here", r.SHA256)
		}
		p.touched[r.Digest] = true
	}
	p.set(f, fd)
	return nil
}

// replacementInReason is how agora-registry/1 deprecations name a
// replacement (registry.statusLogEvent).
var replacementInReason = regexp.MustCompile(`^(?s)(.*) \(replacement ([0-9a-f]{40})\)$`)

// changed applies a status record to what this upstream says of its
// document, and to nothing this upstream did not log.
func (f *Follower) changed(ctx context.Context, p *page, r agora.LogRecord) error {
	rows := p.rows[r.Digest]
	var fd store.FollowDoc
	if i := f.mine(rows); i >= 0 {
		fd = rows[i]
	} else {
		local, err := f.local.Stored(ctx, r.Digest)
		if err != nil && !errors.Is(err, store.ErrWithdrawn) && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		// Documents a follower stored before it kept rows are this
		// upstream's when their origin says so.
		if err != nil || len(rows) > 0 || local.Origin != f.up.Origin() || local.SHA256 != r.SHA256 {
			f.log.Debug("follower: ignored a status change of a document this upstream never logged", "hash", r.Digest.Hex(), "event", r.Event)
			return nil
		}
		fd = store.FollowDoc{Upstream: f.up.Origin(), Digest: r.Digest, Status: entity.StatusActive}
	}
	if fd.Status == entity.StatusWithdrawn {
		return nil // a withdrawal is for good: later records of a hostile log revive nothing
	}
	switch r.Event {
	case agora.LogEventWithdraw:
		fd.Status, fd.Message, fd.Replacement = entity.StatusWithdrawn, r.Reason, nil
	case agora.LogEventDeprecate:
		fd.Status, fd.Message, fd.Replacement = entity.StatusDeprecated, r.Reason, nil
		repl := r.Attested.ReplacedBy
		if m := replacementInReason.FindStringSubmatch(r.Reason); m != nil {
			fd.Message = m[1]
			if repl == "" {
				repl = m[2]
			}
		}
		if d, err := protocol.ParseDigest(repl); repl != "" && err == nil {
			fd.Replacement = &d
		}
	case agora.LogEventReactivate:
		fd.Status, fd.Message, fd.Replacement = entity.StatusActive, "", nil
	default:
		return nil // an event this registry does not know: nothing to apply
	}
	p.set(f, fd)
	p.touched[r.Digest] = true
	return nil
}

// availability ranks statuses: what a follower shows is the most
// available status among the upstreams that logged a document.
var availability = map[entity.Status]int{entity.StatusActive: 0, entity.StatusDeprecated: 1, entity.StatusWithdrawn: 2}

// reconcile sets the status of a document stored here from a followed
// upstream to the most available status among the upstreams that logged
// it (active, then deprecated, then withdrawn), so that no upstream can
// withdraw or deprecate a document another still serves. Documents
// published here, imported or seeded are left alone, as are quarantined
// rows (their upstream logged other bytes, or served them).
func (f *Follower) reconcile(ctx context.Context, d protocol.Digest, rows []store.FollowDoc) error {
	local, err := f.local.Stored(ctx, d)
	if errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrWithdrawn) || (err == nil && local.Withdrawn()) {
		return nil // nothing stored, or a tombstone, which stays
	}
	if err != nil {
		return err
	}
	var best *store.FollowDoc
	fromFollower := false
	for i, r := range rows {
		if r.Quarantine != "" {
			continue
		}
		fromFollower = fromFollower || r.Upstream == local.Origin
		if best == nil || availability[r.Status] < availability[best.Status] ||
			(r.Status == best.Status && r.Upstream == local.Origin) {
			best = &rows[i]
		}
	}
	if !fromFollower || best == nil {
		return nil
	}
	if best.Status == entity.StatusWithdrawn {
		// Before a tombstone, which is for good: another followed
		// upstream that logged the document keeps it served.
		kept, err := f.peerLogged(ctx, d, local.SHA256)
		if err != nil || kept {
			return err
		}
		return f.local.Withdraw(ctx, followerToken, d, best.Message)
	}
	_, err = f.local.ReplicateStatus(ctx, d, registry.StatusRequest{Status: best.Status, Message: best.Message, Replacement: best.Replacement},
		"follower:"+clip(best.Upstream, 180))
	return err
}

func clip(s string, n int) string { return s[:min(len(s), n)] }

// peerLogged asks the other followed upstreams, through the keys pinned
// for them, whether their logs hold a publish record of d with these
// bytes; one that does is recorded as logging d (active until its own
// log says otherwise). A peer that cannot answer is an error: the
// withdrawal waits rather than tombstone what it may still serve.
func (f *Follower) peerLogged(ctx context.Context, d protocol.Digest, sum [32]byte) (bool, error) {
	rows, err := f.state.FollowDocs(ctx, []protocol.Digest{d})
	if err != nil {
		return false, err
	}
	kept := false
	for _, p := range f.peers {
		if p.mine(rows) >= 0 {
			continue // its own records decide
		}
		st, err := f.state.FollowState(ctx, p.up.Origin())
		if errors.Is(err, store.ErrNotFound) {
			return false, errPeerUnanswered.With(fmt.Sprintf("a withdrawal of %s waits: %s has not been contacted yet", d.Hex(), p.up.Origin()))
		}
		if err != nil {
			return false, err
		}
		if st.Forked {
			continue
		}
		f.mu.Lock()
		failedAt, failed := f.peerFailed[p.up.Origin()]
		f.mu.Unlock()
		if failed && time.Since(failedAt) < f.t.MaxBackoff {
			// Asked and unanswered lately: waiting for it again per
			// withdrawal would hold up the page.
			return false, errPeerUnanswered.With(fmt.Sprintf("a withdrawal of %s waits: %s did not answer lately", d.Hex(), p.up.Origin()))
		}
		v, err := agora.NewLogVerifier(p.up, st.VerifierKey)
		if err != nil {
			return false, err
		}
		proof, err := v.Prove(ctx, d)
		if k := apperr.KindOf(err); k == apperr.NotFound || k == apperr.Gone {
			continue
		}
		if err != nil {
			f.mu.Lock()
			f.peerFailed[p.up.Origin()] = time.Now()
			f.mu.Unlock()
			return false, errPeerUnanswered.With(fmt.Sprintf("a withdrawal of %s waits: asking %s whether it logged it failed: %v", d.Hex(), p.up.Origin(), err))
		}
		f.mu.Lock()
		delete(f.peerFailed, p.up.Origin())
		f.mu.Unlock()
		r := proof.Record
		if r.Event != agora.LogEventPublish || r.SHA256 != sum {
			continue
		}
		if err := f.state.SaveFollowDocs(ctx, []store.FollowDoc{{Upstream: p.up.Origin(), Digest: d, Index: proof.Index, Status: entity.StatusActive,
			Publisher: r.Attested.Publisher, PublisherDisplayName: r.Attested.PublisherDisplayName, PublisherDomain: r.Attested.PublisherDomain}}); err != nil {
			return false, err
		}
		f.log.Info("follower: kept a document another followed upstream logged", "hash", d.Hex(), "loggedBy", p.up.Origin())
		kept = true
	}
	return kept, nil
}

// attestedDomain is the form of a domain name a follower records as
// verified (the upstream verified it; this registry takes its word).
var attestedDomain = regexp.MustCompile(`^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$`)

// publisher is the publisher a document from this upstream is stored
// under: the one its record attests (agora-registry/2) when this registry
// has no account of that name, or the account this follower made for it
// before; otherwise, and for /1 records, registry.MirrorPublisher. A new
// account gets the attested display name and verified domain.
func (f *Follower) publisher(ctx context.Context, a agora.LogAttestation) (string, error) {
	name := a.Publisher
	if name == "" || name == registry.MirrorPublisher || name == registry.ExamplesPublisher || name == registry.AnonymousPublisher || name == entity.DefaultPublisher {
		return registry.MirrorPublisher, nil
	}
	if _, err := entity.PublisherOr(name); err != nil {
		return registry.MirrorPublisher, nil
	}
	f.mu.Lock()
	domain, own := f.own[name]
	f.mu.Unlock()
	if own && domain == a.PublisherDomain {
		return name, nil // checked for an earlier document
	}
	acc, err := f.state.GetPublisher(ctx, name)
	switch {
	case errors.Is(err, store.ErrPublisherUnknown):
		acc, err = f.state.CreatePublisher(ctx, entity.Publisher{Name: name, DisplayName: registry.CleanDisplayName(a.PublisherDisplayName)})
		if errors.Is(err, store.ErrConflict) {
			return registry.MirrorPublisher, nil // made here meanwhile: not ours
		}
		if err != nil {
			return "", err
		}
		own = true
	case err != nil:
		return "", err
	case !own:
		if own, err = f.state.FollowPublisherSeen(ctx, f.up.Origin(), name); err != nil {
			return "", err
		}
		if !own {
			f.log.Warn("follower: the upstream attests a publisher this registry has its own account for; stored as "+registry.MirrorPublisher, "publisher", name)
			return registry.MirrorPublisher, nil
		}
	}
	if a.PublisherDomain != acc.VerifiedDomain && attestedDomain.MatchString(a.PublisherDomain) {
		if err := f.state.MarkVerified(ctx, name, a.PublisherDomain, time.Now()); err != nil {
			return "", err
		}
	}
	f.mu.Lock()
	f.own[name] = a.PublisherDomain
	f.mu.Unlock()
	return name, nil
}
