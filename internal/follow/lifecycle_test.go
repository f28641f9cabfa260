package follow_test

import (
	"crypto/sha1"
	"crypto/sha256"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/client"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/follow"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/testing/security"
	"golang.org/x/mod/sumdb/tlog"
)

func stored(t *testing.T, here *security.Server, d string) entity.Entry {
	t.Helper()
	e, err := here.Svc.Stored(ctx(t), protocolDigest(d))
	if err != nil && !errors.Is(err, store.ErrWithdrawn) {
		t.Fatalf("%q is not stored: %v", d[:12], err)
	}
	return e
}

// TestLifecycleReplicated: deprecations (with their replacement, written
// either way), reactivations, withdrawals and the attested publisher
// reach a follower, on both engines.
func TestLifecycleReplicated(t *testing.T) {
	for _, engine := range security.Engines {
		t.Run(engine, func(t *testing.T) {
			up := newFakeLog(t, "lifecycle.example", "")
			here := security.Start(t, security.Options{Engine: engine})
			acme := agora.LogAttestation{Publisher: "acme", PublisherDisplayName: "Acme Inc", PublisherDomain: "acme.example"}
			d1, d2, d3 := doc("One", 1), doc("Two", 2), doc("Three", 3)
			up.publish(d1, acme)
			h2 := up.publish(d2, agora.LogAttestation{})
			h1 := protocolDigest(d1)
			up.publish(d3, agora.LogAttestation{Publisher: "acme"})
			up.status(agora.LogEventDeprecate, "deprecated", "use two", d1, agora.LogAttestation{ReplacedBy: h2.Hex()})
			up.status(agora.LogEventDeprecate, "deprecated", "old (replacement "+h1.Hex()+")", d3, agora.LogAttestation{})
			f := followFake(t, up.URL, here, nil)
			stepUntilCaughtUp(t, f, up)

			e1 := stored(t, here, d1)
			if e1.Status() != entity.StatusDeprecated || e1.Lifecycle.Message != "use two" || e1.Lifecycle.Replacement == nil || *e1.Lifecycle.Replacement != h2 {
				t.Fatalf("deprecated upstream with a replacement: %+v", e1.Lifecycle)
			}
			if e1.Publisher != "acme" || stored(t, here, d2).Publisher != registry.MirrorPublisher || stored(t, here, d3).Publisher != "acme" {
				t.Fatalf("publishers %q %q %q, want the attested one, or mirror for a /1 record", e1.Publisher, stored(t, here, d2).Publisher, stored(t, here, d3).Publisher)
			}
			p, err := here.Store.GetPublisher(ctx(t), "acme")
			if err != nil || p.DisplayName != "Acme Inc" || p.VerifiedDomain != "acme.example" {
				t.Fatalf("the attested publisher's account: %+v %v", p, err)
			}
			e3 := stored(t, here, d3)
			if e3.Status() != entity.StatusDeprecated || e3.Lifecycle.Message != "old" || e3.Lifecycle.Replacement == nil || *e3.Lifecycle.Replacement != h1 {
				t.Fatalf("deprecated by an agora-registry/1 record naming its replacement in the reason: %+v", e3.Lifecycle)
			}

			up.status(agora.LogEventReactivate, "active", "", d1, agora.LogAttestation{})
			up.status(agora.LogEventWithdraw, "withdrawn", "spam", d2, agora.LogAttestation{})
			stepUntilCaughtUp(t, f, up)
			if e := stored(t, here, d1); e.Status() != entity.StatusActive || e.Lifecycle.Replacement != nil {
				t.Fatalf("reactivated upstream: %+v", e.Lifecycle)
			}
			if e := stored(t, here, d2); !e.Withdrawn() || e.WithdrawReason != "spam" {
				t.Fatalf("withdrawn upstream: %+v", e)
			}
		})
	}
}

// TestAPublisherWithAnAccountHereIsNotTaken: an upstream attesting a
// publisher this registry has its own account for stores the document as
// mirror's, so the local publisher's tokens cannot act on it.
func TestAPublisherWithAnAccountHereIsNotTaken(t *testing.T) {
	up := newFakeLog(t, "takeover.example", "")
	here := security.Start(t, security.Options{})
	if _, err := here.Svc.CreatePublisher(ctx(t), "local", "Ours"); err != nil {
		t.Fatal(err)
	}
	d := doc("Claimed", 0)
	up.publish(d, agora.LogAttestation{Publisher: "local", PublisherDomain: "evil.example"})
	stepUntilCaughtUp(t, followFake(t, up.URL, here, nil), up)
	if e := stored(t, here, d); e.Publisher != registry.MirrorPublisher {
		t.Fatalf("a document attested to a local publisher is stored as %q", e.Publisher)
	}
	if p, _ := here.Store.GetPublisher(ctx(t), "local"); p.VerifiedDomain != "" || p.DisplayName != "Ours" {
		t.Fatalf("the local account was changed: %+v", p)
	}
}

// TestEventsOfAnUpstreamThatDidNotLogTheDocumentAreIgnored: an upstream
// can change the status only of documents its own log published.
func TestEventsOfAnUpstreamThatDidNotLogTheDocumentAreIgnored(t *testing.T) {
	a := newFakeLog(t, "a.example", "")
	b := newFakeLog(t, "b.example", "")
	here := security.Start(t, security.Options{})
	d, kept := doc("Of A", 0), doc("Kept", 0)
	a.publish(d, agora.LogAttestation{})
	a.publish(kept, agora.LogAttestation{})
	a.status(agora.LogEventDeprecate, "deprecated", "by a", d, agora.LogAttestation{})
	b.publish(doc("Of B", 0), agora.LogAttestation{})
	b.status(agora.LogEventReactivate, "active", "", d, agora.LogAttestation{})
	b.status(agora.LogEventWithdraw, "withdrawn", "by b", kept, agora.LogAttestation{})
	fa, fb := followFake(t, a.URL, here, nil), followFake(t, b.URL, here, nil)
	follow.Link([]*follow.Follower{fa, fb})
	stepUntilCaughtUp(t, fa, a)
	stepUntilCaughtUp(t, fb, b)
	if e := stored(t, here, d); e.Status() != entity.StatusDeprecated || e.Lifecycle.Message != "by a" {
		t.Fatalf("another upstream reactivated a document it never logged: %+v", e.Lifecycle)
	}
	if e := stored(t, here, kept); e.Withdrawn() {
		t.Fatal("another upstream withdrew a document it never logged")
	}
}

// TestASecondUpstreamsWithdrawalDoesNotHideADocument: a hostile upstream
// that copies a document and withdraws it cannot make this registry
// answer 410 while the honest upstream that logged it serves it, in
// either order of the followers; once every upstream that logged it
// withdrew it, it is withdrawn.
func TestASecondUpstreamsWithdrawalDoesNotHideADocument(t *testing.T) {
	for _, hostileFirst := range []bool{true, false} {
		name := map[bool]string{true: "hostile first", false: "honest first"}[hostileFirst]
		t.Run(name, func(t *testing.T) {
			honest := newFakeLog(t, "honest.example", "")
			hostile := newFakeLog(t, "hostile.example", "")
			here := security.Start(t, security.Options{})
			d := doc("Shared", 0)
			honest.publish(doc("Before", 0), agora.LogAttestation{})
			honest.publish(d, agora.LogAttestation{})
			hostile.publish(d, agora.LogAttestation{})
			hostile.status(agora.LogEventWithdraw, "withdrawn", "gone", d, agora.LogAttestation{})
			hostile.status(agora.LogEventDeprecate, "deprecated", "gone", d, agora.LogAttestation{})
			fh, fx := followFake(t, honest.URL, here, nil), followFake(t, hostile.URL, here, nil)
			follow.Link([]*follow.Follower{fh, fx})
			if hostileFirst {
				honest.served = 0 // the honest follower has pinned its key, no more
				stepUntilCaughtUp(t, fh, honest)
				honest.served = -1
				stepUntilCaughtUp(t, fx, hostile)
				stepUntilCaughtUp(t, fh, honest)
			} else {
				stepUntilCaughtUp(t, fh, honest)
				stepUntilCaughtUp(t, fx, hostile)
			}
			if e := stored(t, here, d); e.Withdrawn() || e.Status() != entity.StatusActive {
				t.Fatalf("a document the honest upstream serves: withdrawn %v, status %s", e.Withdrawn(), e.Status())
			}
			honest.status(agora.LogEventWithdraw, "withdrawn", "really", d, agora.LogAttestation{})
			stepUntilCaughtUp(t, fh, honest)
			if e := stored(t, here, d); !e.Withdrawn() {
				t.Fatal("a document every upstream that logged it withdrew is served")
			}
		})
	}
}

// TestBadBytesAreQuarantinedAndLaterRecordsApply: a document whose bytes
// do not match its record (another SHA-1, or the record's SHA-256 and
// size) is not stored, is reported, and the records after it apply.
func TestBadBytesAreQuarantinedAndLaterRecordsApply(t *testing.T) {
	up := newFakeLog(t, "bad.example", "")
	here := security.Start(t, security.Options{})
	wrongSHA1, wrongSHA256, good := doc("Wrong SHA-1", 0), doc("Wrong SHA-256", 0), doc("Good", 0)
	up.publish(wrongSHA1, agora.LogAttestation{})
	hw := protocolDigest(wrongSHA256)
	up.mu.Lock()
	up.docs[hw] = []byte(wrongSHA256)
	up.mu.Unlock()
	up.add(agora.LogRecord{Event: agora.LogEventPublish, Digest: hw, SHA256: sha256.Sum256([]byte("other bytes")), Size: len(wrongSHA256)})
	up.publish(good, agora.LogAttestation{})
	up.status(agora.LogEventDeprecate, "deprecated", "later", good, agora.LogAttestation{})
	bad := protocolDigest(wrongSHA1)
	up.setHook(func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == "/protocol/"+bad.Hex() {
			w.Write([]byte(doc("Something else", 0)))
			return true
		}
		return false
	})
	f := followFake(t, up.URL, here, nil)
	stepUntilCaughtUp(t, f, up)
	for _, d := range []string{wrongSHA1, wrongSHA256} {
		if _, err := here.Svc.Stored(ctx(t), protocolDigest(d)); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a document whose bytes do not match its record was stored: %v", err)
		}
	}
	if e := stored(t, here, good); e.Status() != entity.StatusDeprecated {
		t.Fatalf("the records after the bad document: %+v", e.Lifecycle)
	}
	r, err := f.Report(ctx(t), 10)
	if err != nil {
		t.Fatal(err)
	}
	if r.Quarantined != 2 || len(r.QuarantinedDocs) != 2 || f.Status().Quarantined != 2 {
		t.Fatalf("report %+v, status %+v: want 2 quarantined", r, f.Status())
	}
	for _, q := range r.QuarantinedDocs {
		if q.Reason == "" || (q.Hash != bad.Hex() && q.Hash != hw.Hex()) {
			t.Fatalf("quarantined %+v", q)
		}
	}
	// A restart counts them from the store.
	if err := followFake(t, up.URL, here, nil).Step(ctx(t)); err != nil {
		t.Fatal(err)
	}
	// A replay (as after `follow reset`) that now fetches the right bytes
	// stores the document and clears its quarantine.
	up.setHook(func(http.ResponseWriter, *http.Request) bool { return false })
	fst, err := here.Store.FollowState(ctx(t), up.URL)
	if err != nil {
		t.Fatal(err)
	}
	fst.Applied, fst.Checkpoint = 0, []byte{}
	if err := here.Store.SaveFollowState(ctx(t), fst); err != nil {
		t.Fatal(err)
	}
	again := followFake(t, up.URL, here, nil)
	stepUntilCaughtUp(t, again, up)
	if _, err := here.Svc.Stored(ctx(t), bad); err != nil {
		t.Fatalf("the replay did not store the document it now fetched right: %v", err)
	}
	if r, err := again.Report(ctx(t), 10); err != nil || r.Quarantined != 1 || len(r.QuarantinedDocs) != 1 || r.QuarantinedDocs[0].Hash != hw.Hex() {
		t.Fatalf("after the replay: %+v, %v; want only the record of other bytes quarantined", r, err)
	}
}

// TestARecordOfOtherBytesUnderAStoredSHA1ChangesNothing: an upstream
// whose record names a stored SHA-1 with other bytes (a collision claim)
// cannot change the status of the document stored here.
func TestARecordOfOtherBytesUnderAStoredSHA1ChangesNothing(t *testing.T) {
	a := newFakeLog(t, "a.example", "")
	b := newFakeLog(t, "b.example", "")
	here := security.Start(t, security.Options{})
	d := doc("Stored", 0)
	a.publish(d, agora.LogAttestation{})
	a.status(agora.LogEventDeprecate, "deprecated", "by a", d, agora.LogAttestation{})
	h := protocol.Digest(sha1.Sum([]byte(d)))
	other := sha256.Sum256([]byte("collision"))
	b.add(agora.LogRecord{Event: agora.LogEventPublish, Digest: h, SHA256: other, Size: 9})
	b.add(agora.LogRecord{Event: agora.LogEventReactivate, Digest: h, SHA256: other, Size: 9, Status: "active"})
	fa, fb := followFake(t, a.URL, here, nil), followFake(t, b.URL, here, nil)
	follow.Link([]*follow.Follower{fa, fb})
	stepUntilCaughtUp(t, fa, a)
	stepUntilCaughtUp(t, fb, b)
	if e := stored(t, here, d); e.Status() != entity.StatusDeprecated {
		t.Fatalf("a record of other bytes reactivated the stored document: %+v", e.Lifecycle)
	}
}

// TestAnUpstreamThatLogsADocumentActiveOutranksADeprecation: a document
// one upstream deprecated is shown active once another followed upstream
// logs it (the most available status among those that logged it).
func TestAnUpstreamThatLogsADocumentActiveOutranksADeprecation(t *testing.T) {
	a := newFakeLog(t, "a.example", "")
	b := newFakeLog(t, "b.example", "")
	here := security.Start(t, security.Options{})
	d := doc("Both", 0)
	a.publish(d, agora.LogAttestation{})
	a.status(agora.LogEventDeprecate, "deprecated", "by a", d, agora.LogAttestation{})
	b.publish(d, agora.LogAttestation{})
	fa, fb := followFake(t, a.URL, here, nil), followFake(t, b.URL, here, nil)
	follow.Link([]*follow.Follower{fa, fb})
	stepUntilCaughtUp(t, fa, a)
	if e := stored(t, here, d); e.Status() != entity.StatusDeprecated {
		t.Fatalf("deprecated by its only upstream: %+v", e.Lifecycle)
	}
	stepUntilCaughtUp(t, fb, b)
	if e := stored(t, here, d); e.Status() != entity.StatusActive {
		t.Fatalf("logged active by a second upstream: %+v", e.Lifecycle)
	}
}

// TestAPeerLookupMustProveTheSameBytes: before a withdrawal the follower
// keeps a document only for another upstream whose log proves a publish
// of those bytes: a lookup answering another document's record is an
// error (the withdrawal waits), and a record of other bytes under the
// SHA-1 keeps nothing.
func TestAPeerLookupMustProveTheSameBytes(t *testing.T) {
	honest := newFakeLog(t, "honest.example", "")
	hostile := newFakeLog(t, "hostile.example", "")
	here := security.Start(t, security.Options{})
	d := doc("Withdrawn", 0)
	h := protocolDigest(d)
	honest.publish(doc("Before", 0), agora.LogAttestation{})
	honest.add(agora.LogRecord{Event: agora.LogEventPublish, Digest: h, SHA256: sha256.Sum256([]byte("other bytes")), Size: 11})
	hostile.publish(d, agora.LogAttestation{})
	hostile.status(agora.LogEventWithdraw, "withdrawn", "gone", d, agora.LogAttestation{})
	fh, fx := followFake(t, honest.URL, here, nil), followFake(t, hostile.URL, here, nil)
	follow.Link([]*follow.Follower{fh, fx})
	honest.served = 0
	stepUntilCaughtUp(t, fh, honest) // pins the honest key only
	honest.served = -1

	other := protocolDigest(doc("Before", 0))
	honest.setHook(func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == "/log/lookup/"+h.Hex() {
			r.URL.Path = "/log/lookup/" + other.Hex()
		}
		return false
	})
	stepUntilCaughtUp(t, fx, hostile) // the withdrawal waits; the records go on
	if e := stored(t, here, d); e.Withdrawn() {
		t.Fatal("withdrawn while another upstream's answer was unproved")
	}
	if st := fx.Status(); st.Deferred != 1 || !strings.Contains(st.LastError, "waits") {
		t.Fatalf("a deferred withdrawal is not reported: %+v", st)
	}
	honest.setHook(nil)
	fx = followFake(t, hostile.URL, here, nil) // a restart: the store says what it owes
	follow.Link([]*follow.Follower{fh, fx})
	if err := fx.Step(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if e := stored(t, here, d); !e.Withdrawn() {
		t.Fatal("a record of other bytes under the SHA-1 kept the document served")
	}
}

// TestLifecycleFromARealRegistry: the status records a registry writes
// today (deprecation with a replacement, reactivation, withdrawal) reach
// a follower on both engines.
func TestLifecycleFromARealRegistry(t *testing.T) {
	for _, engine := range security.Engines {
		t.Run(engine, func(t *testing.T) {
			up := security.Start(t, security.Options{})
			here := security.Start(t, security.Options{Engine: engine})
			admin, err := up.Svc.CreateToken(ctx(t), "admin", []entity.Scope{entity.ScopeAdmin})
			if err != nil {
				t.Fatal(err)
			}
			ds := publish(t, up, "Real", 3)
			f := newFollower(t, up.URL, here)
			catchUp(t, f, up)
			if _, err := up.Svc.SetStatus(ctx(t), admin.Token, ds[0], registry.StatusRequest{Status: entity.StatusDeprecated, Message: "use the next", Replacement: &ds[1]}); err != nil {
				t.Fatal(err)
			}
			if _, err := up.Svc.SetStatus(ctx(t), admin.Token, ds[2], registry.StatusRequest{Status: entity.StatusDeprecated, Message: "briefly"}); err != nil {
				t.Fatal(err)
			}
			catchUp(t, f, up)
			e, err := here.Svc.Stored(ctx(t), ds[0])
			if err != nil || e.Status() != entity.StatusDeprecated || e.Lifecycle.Message != "use the next" || e.Lifecycle.Replacement == nil || *e.Lifecycle.Replacement != ds[1] {
				t.Fatalf("deprecated upstream with a replacement: %+v %v", e.Lifecycle, err)
			}
			if _, err := up.Svc.SetStatus(ctx(t), admin.Token, ds[2], registry.StatusRequest{Status: entity.StatusActive}); err != nil {
				t.Fatal(err)
			}
			if err := up.Svc.Withdraw(ctx(t), admin.Token, ds[1], "spam"); err != nil {
				t.Fatal(err)
			}
			catchUp(t, f, up)
			if e, err := here.Svc.Stored(ctx(t), ds[2]); err != nil || e.Status() != entity.StatusActive {
				t.Fatalf("reactivated upstream: %+v %v", e.Lifecycle, err)
			}
			if e, err := here.Svc.Stored(ctx(t), ds[1]); err != nil || !e.Withdrawn() || e.WithdrawReason != "spam" {
				t.Fatalf("withdrawn upstream: %+v %v", e, err)
			}
		})
	}
}

// TestAWithdrawalWaitingForAnotherUpstreamDoesNotStall: while another
// followed upstream cannot answer, a withdrawal only it could veto waits
// (the document stays served, the error is reported) and the records
// after it apply; once it answers the withdrawal is applied, also by a
// follower restarted in between (the store remembers what is owed).
func TestAWithdrawalWaitingForAnotherUpstreamDoesNotStall(t *testing.T) {
	for _, restart := range []bool{false, true} {
		t.Run(map[bool]string{false: "running", true: "restarted"}[restart], func(t *testing.T) {
			down := newFakeLog(t, "down.example", "")
			up := newFakeLog(t, "up.example", "")
			here := security.Start(t, security.Options{})
			d, later := doc("Withdrawn", 0), doc("Later", 0)
			up.publish(d, agora.LogAttestation{})
			up.status(agora.LogEventWithdraw, "withdrawn", "gone", d, agora.LogAttestation{})
			up.publish(later, agora.LogAttestation{})
			down.setHook(func(w http.ResponseWriter, r *http.Request) bool {
				http.Error(w, "down", http.StatusServiceUnavailable)
				return true
			})
			fd, fu := followFake(t, down.URL, here, nil), followFake(t, up.URL, here, nil)
			follow.Link([]*follow.Follower{fd, fu})
			stepUntilCaughtUp(t, fu, up)
			if e := stored(t, here, d); e.Withdrawn() {
				t.Fatal("withdrawn while another followed upstream could not answer")
			}
			stored(t, here, later) // the records after it applied
			if st := fu.Status(); st.Deferred != 1 || st.LastError == "" {
				t.Fatalf("the waiting withdrawal is not reported: %+v", st)
			}
			down.setHook(nil)
			if err := fd.Step(ctx(t)); err != nil { // first contact: pins its key
				t.Fatal(err)
			}
			if restart {
				fu = followFake(t, up.URL, here, nil)
				follow.Link([]*follow.Follower{fd, fu})
			}
			if err := fu.Step(ctx(t)); err != nil {
				t.Fatal(err)
			}
			if e := stored(t, here, d); !e.Withdrawn() {
				t.Fatal("the withdrawal was not applied once the other upstream answered")
			}
		})
	}
}

// TestAnUnansweringUpstreamIsAskedOnceAPage: an upstream that failed to
// answer is not asked again for every withdrawal of a page (each could
// cost a request timeout).
func TestAnUnansweringUpstreamIsAskedOnceAPage(t *testing.T) {
	down := newFakeLog(t, "down.example", "")
	up := newFakeLog(t, "up.example", "")
	here := security.Start(t, security.Options{})
	fd := followFake(t, down.URL, here, nil)
	c, err := client.New(up.URL, &http.Client{Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	// A long backoff: the test does not depend on how fast a page runs.
	fu := follow.New(c, here.Svc, here.Store, slog.New(slog.DiscardHandler), follow.Timing{Wait: 50 * time.Millisecond, MinBackoff: time.Millisecond, MaxBackoff: time.Hour})
	follow.Link([]*follow.Follower{fd, fu})
	stepUntilCaughtUp(t, fd, down) // pins its key
	for i := range 5 {
		up.publish(doc("Gone", i), agora.LogAttestation{})
		up.status(agora.LogEventWithdraw, "withdrawn", "gone", doc("Gone", i), agora.LogAttestation{})
	}
	var lookups atomic.Int64
	down.setHook(func(w http.ResponseWriter, r *http.Request) bool {
		if strings.HasPrefix(r.URL.Path, "/log/lookup/") {
			lookups.Add(1)
		}
		http.Error(w, "down", http.StatusServiceUnavailable)
		return true
	})
	stepUntilCaughtUp(t, fu, up)
	if n := lookups.Load(); n != 1 {
		t.Fatalf("%d lookups of an upstream that does not answer, for 5 withdrawals", n)
	}
	// Waiting withdrawals are reported as such, not as failed rounds.
	if st := fu.Status(); st.Deferred != 5 || st.Errors != 0 {
		t.Fatalf("5 withdrawals waiting for another upstream: %d deferred, %d errors; want 5 and 0", st.Deferred, st.Errors)
	}
}

// TestAPeerRecordThatIsNotAPublishKeepsNothing: before a withdrawal, only
// a publish record in another upstream's log keeps a document served; a
// status record of the same bytes there (which publishes nothing) does
// not.
func TestAPeerRecordThatIsNotAPublishKeepsNothing(t *testing.T) {
	peer := newFakeLog(t, "peer.example", "")
	up := newFakeLog(t, "up.example", "")
	here := security.Start(t, security.Options{})
	d := doc("Withdrawn", 0)
	peer.publish(doc("Before", 0), agora.LogAttestation{})
	peer.status(agora.LogEventDeprecate, "deprecated", "old", d, agora.LogAttestation{})
	up.publish(d, agora.LogAttestation{})
	up.status(agora.LogEventWithdraw, "withdrawn", "gone", d, agora.LogAttestation{})
	// The peer's lookup answers the status record (index 1), proved.
	peer.setHook(func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path != "/log/lookup/"+protocolDigest(d).Hex() {
			return false
		}
		peer.mu.Lock()
		defer peer.mu.Unlock()
		msg, _ := tlog.FormatRecord(1, peer.records[1])
		w.Write(append(msg, peer.checkpoint(peer.size())...))
		return true
	})
	fp, fu := followFake(t, peer.URL, here, nil), followFake(t, up.URL, here, nil)
	follow.Link([]*follow.Follower{fp, fu})
	stepUntilCaughtUp(t, fp, peer)
	stepUntilCaughtUp(t, fu, up)
	if e := stored(t, here, d); !e.Withdrawn() {
		t.Fatal("another upstream's deprecation record kept a withdrawn document served")
	}
}
