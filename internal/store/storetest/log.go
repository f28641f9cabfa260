package storetest

import (
	"bytes"
	"crypto/sha1"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// refLog is a reference integrator: it keeps every stored hash in memory,
// computed by tlog itself, and writes a text the test can recognise. The
// store's hashes, read back, must equal it.
type refLog struct {
	mu     sync.Mutex
	hashes []tlog.Hash
	texts  [][]byte
}

func (r *refLog) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(indexes))
	for i, x := range indexes {
		if x >= int64(len(r.hashes)) {
			return nil, fmt.Errorf("reference: hash %d not stored", x)
		}
		out[i] = r.hashes[x]
	}
	return out, nil
}

func refText(ev store.LogEvent) []byte {
	return fmt.Appendf(nil, "%s\n%s\n%x\n%d\n%s\n%s\n%q\n", ev.Event, ev.Digest.Hex(), ev.SHA256, ev.Size,
		ev.At.UTC().Format(time.RFC3339Nano), ev.Status, ev.Reason)
}

// integrate is the store.Integrator; it reads older hashes through the
// store's reader, so that reader is checked against the reference too.
func (r *refLog) integrate(head store.LogHead, pending []store.LogEvent, read tlog.HashReader) (store.LogBatch, bool, error) {
	if len(pending) == 0 {
		return store.LogBatch{}, false, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if head.Size != int64(len(r.texts)) {
		return store.LogBatch{}, false, fmt.Errorf("head size %d, reference %d", head.Size, len(r.texts))
	}
	if head.Size > 0 {
		got, err := read.ReadHashes([]int64{0, tlog.StoredHashCount(head.Size) - 1})
		if err != nil {
			return store.LogBatch{}, false, err
		}
		if got[0] != r.hashes[0] || got[1] != r.hashes[len(r.hashes)-1] {
			return store.LogBatch{}, false, errors.New("the transaction's hash reader disagrees with the reference")
		}
	}
	b := store.LogBatch{}
	first := len(r.hashes)
	for i, ev := range pending {
		text := refText(ev)
		hs, err := tlog.StoredHashes(head.Size+int64(i), text, r)
		if err != nil {
			return store.LogBatch{}, false, err
		}
		r.hashes, r.texts = append(r.hashes, hs...), append(r.texts, text)
		b.Records = append(b.Records, store.LogRecord{Index: head.Size + int64(i), Digest: ev.Digest, Event: ev.Event, Text: text})
	}
	b.Hashes = append([]tlog.Hash(nil), r.hashes[first:]...)
	size := head.Size + int64(len(pending))
	root, err := tlog.TreeHash(size, r)
	if err != nil {
		return store.LogBatch{}, false, err
	}
	b.Head = store.LogHead{Size: size, Root: root, Checkpoint: fmt.Appendf(nil, "size %d", size)}
	return b, true, nil
}

// drain integrates until nothing is queued.
func (r *refLog) drain(t testing.TB, s store.Store, limit int) store.LogHead {
	t.Helper()
	for {
		head, n, err := s.IntegrateLog(ctx(t), limit, r.integrate)
		noErr(t, "IntegrateLog", err)
		if n < limit {
			return head
		}
	}
}

func testLog(t *testing.T, open Opener) {
	s := open(t)
	ref := &refLog{}
	head, err := s.LogHead(ctx(t))
	noErr(t, "LogHead of a fresh store", err)
	if head.Size != 0 || len(head.Checkpoint) != 0 {
		t.Fatalf("fresh log head = %+v, want size 0 and no checkpoint", head)
	}

	a := putText(t, s, simpleDoc("Logged one", "first", nil, "Body."))
	_, err = s.LogLookup(ctx(t), a.Digest)
	wantErr(t, "LogLookup of a queued publish", err, store.ErrLogPending)
	nds := []store.NewDocument{prepare(t, simpleDoc("Logged two", "x", nil, "B.")), prepare(t, simpleDoc("Logged three", "x", nil, "B."))}
	_, err = s.PutMany(ctx(t), nds)
	noErr(t, "PutMany", err)
	_, _, err = s.Put(ctx(t), prepare(t, simpleDoc("Logged one", "first", nil, "Body.")))
	noErr(t, "Put again", err) // not new: no event
	noErr(t, "Withdraw", s.Withdraw(ctx(t), a.Digest, "gone"))
	noErr(t, "Withdraw again", s.Withdraw(ctx(t), a.Digest, "twice")) // no second event
	tomb := prepare(t, simpleDoc("Logged tomb", "x", nil, "B."))
	when := time.Date(2020, 1, 2, 3, 4, 5, 6000, time.UTC)
	tomb.WithdrawnAt, tomb.WithdrawReason = &when, "legal"
	put(t, s, tomb)
	_, err = s.SetStatus(ctx(t), nds[0].Document.Sums.SHA1, store.StatusChange{Status: entity.StatusDeprecated, Actor: "test",
		Log: &store.LogEvent{Event: "deprecate", Status: "deprecated", Reason: "old"}})
	noErr(t, "SetStatus with a log event", err)

	head = ref.drain(t, s, 2) // batches of 2: integration across transactions
	want := []struct {
		event  string
		digest protocol.Digest
	}{
		{"publish", a.Digest}, {"publish", nds[0].Document.Sums.SHA1}, {"publish", nds[1].Document.Sums.SHA1},
		{"withdraw", a.Digest}, {"publish", tomb.Document.Sums.SHA1}, {"withdraw", tomb.Document.Sums.SHA1}, {"deprecate", nds[0].Document.Sums.SHA1},
	}
	if head.Size != int64(len(want)) || string(head.Checkpoint) != fmt.Sprintf("size %d", len(want)) {
		t.Fatalf("log head %d %q after integration, want %d records", head.Size, head.Checkpoint, len(want))
	}
	recs, err := s.LogRecords(ctx(t), 0, store.MaxLogRecords)
	noErr(t, "LogRecords", err)
	if len(recs) != len(want) {
		t.Fatalf("LogRecords gave %d records, want %d", len(recs), len(want))
	}
	if recs[1].Digest == want[2].digest { // a batch's rows may enter in any order
		want[1], want[2] = want[2], want[1]
	}
	for i, w := range want {
		r := recs[i]
		if r.Index != int64(i) || r.Event != w.event || r.Digest != w.digest || !bytes.Equal(r.Text, ref.texts[i]) {
			t.Fatalf("record %d = %d %s %s, want %s %s", i, r.Index, r.Event, r.Digest, w.event, w.digest)
		}
	}
	if !bytes.Contains(recs[3].Text, []byte(`"gone"`)) || !bytes.Contains(recs[5].Text, []byte(`"legal"`)) ||
		!bytes.Contains(recs[5].Text, []byte("2020-01-02T03:04:05.000006Z")) || !bytes.Contains(recs[4].Text, []byte("\n\"\"\n")) {
		t.Fatalf("withdraw events lost their reason or time: %q / %q", recs[3].Text, recs[5].Text)
	}

	// Every stored hash, and the root, as tlog computes them.
	n := tlog.StoredHashCount(head.Size)
	idx := make([]int64, n)
	for i := range idx {
		idx[i] = int64(i)
	}
	got, err := s.LogHashes(ctx(t), idx)
	noErr(t, "LogHashes", err)
	for i := range got {
		if got[i] != ref.hashes[i] {
			t.Fatalf("stored hash %d differs from tlog's", i)
		}
	}
	root, err := tlog.TreeHash(head.Size, ref)
	noErr(t, "TreeHash", err)
	if head.Root != root {
		t.Fatal("the stored root is not tlog's")
	}
	_, err = s.LogHashes(ctx(t), []int64{n})
	wantErr(t, "LogHashes past the end", err, store.ErrNotFound)
	_, err = s.LogHashes(ctx(t), []int64{-1})
	wantErr(t, "LogHashes of a negative index", err, store.ErrInvalid)

	id, err := s.LogLookup(ctx(t), a.Digest)
	noErr(t, "LogLookup", err)
	if id != 0 {
		t.Fatalf("LogLookup = %d, want the publish record 0", id)
	}
	_, err = s.LogLookup(ctx(t), protocol.Digest{1})
	wantErr(t, "LogLookup of an unknown hash", err, store.ErrNotFound)
	part, err := s.LogRecords(ctx(t), 5, 10)
	noErr(t, "LogRecords from 5", err)
	if len(part) != 2 || part[0].Index != 5 {
		t.Fatalf("LogRecords(5, 10) = %d records from %d", len(part), part[0].Index)
	}
	_, err = s.LogRecords(ctx(t), 0, store.MaxLogRecords+1)
	wantErr(t, "LogRecords over the cap", err, store.ErrInvalid)
	_, _, err = s.IntegrateLog(ctx(t), store.MaxLogBatch+1, ref.integrate)
	wantErr(t, "IntegrateLog over the cap", err, store.ErrInvalid)

	// A batch that does not cover the queue is refused and nothing changes.
	putText(t, s, simpleDoc("Logged four", "x", nil, "B."))
	_, _, err = s.IntegrateLog(ctx(t), 10, func(h store.LogHead, p []store.LogEvent, _ tlog.HashReader) (store.LogBatch, bool, error) {
		return store.LogBatch{Head: store.LogHead{Size: h.Size + 1, Root: h.Root}}, true, nil
	})
	if err == nil {
		t.Fatal("IntegrateLog stored a batch without its records")
	}
	if h, _ := s.LogHead(ctx(t)); h.Size != head.Size {
		t.Fatalf("a refused batch changed the head to %d", h.Size)
	}

	// The signing key: generated once, then kept.
	k1, err := s.LogSigningKey(ctx(t), func() (string, error) { return "first", nil })
	noErr(t, "LogSigningKey", err)
	k2, err := s.LogSigningKey(ctx(t), func() (string, error) { return "second", nil })
	noErr(t, "LogSigningKey again", err)
	if k1 != "first" || k2 != "first" {
		t.Fatalf("signing keys %q, %q; want the first one kept", k1, k2)
	}
}

// testLogConcurrent publishes from many goroutines while integrating
// concurrently: the log ends with each document once, gap-free.
// testLogLookupDuringIntegration: a published document's lookup says
// queued or logged while integration moves it from one to the other, never
// that it is not logged (the proof page's 404 not_logged).
func testLogLookupDuringIntegration(t *testing.T, open Opener) {
	s := open(t)
	ref := &refLog{}
	var ds []protocol.Digest
	for i := range 150 {
		ds = append(ds, putText(t, s, simpleDoc(fmt.Sprintf("Looked up %d", i), "x", nil, "B.")).Digest)
	}
	done := make(chan error, 1)
	go func() {
		for {
			_, n, err := s.IntegrateLog(ctx(t), 1, ref.integrate)
			if err != nil || n == 0 {
				done <- err
				return
			}
		}
	}()
	for _, d := range ds { // each in turn, as integration reaches it
		for {
			_, err := s.LogLookup(ctx(t), d)
			if errors.Is(err, store.ErrLogPending) {
				continue
			}
			if err != nil {
				t.Fatalf("LogLookup of a published document during integration: %v", err)
			}
			break
		}
	}
	noErr(t, "integration", <-done)
}

func testLogConcurrent(t *testing.T, open Opener) {
	s := open(t)
	ref := &refLog{}
	const writers, each = 4, 10
	var wg sync.WaitGroup
	stop := make(chan struct{})
	integrated := make(chan error, 1)
	go func() {
		for {
			select {
			case <-stop:
				_, _, err := s.IntegrateLog(ctx(t), store.MaxLogBatch, ref.integrate)
				integrated <- err
				return
			default:
			}
			if _, _, err := s.IntegrateLog(ctx(t), 3, ref.integrate); err != nil {
				integrated <- err
				return
			}
		}
	}()
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				putText(t, s, simpleDoc(fmt.Sprintf("Concurrent %d %d", w, i), "x", nil, "B."))
			}
		}()
	}
	wg.Wait()
	close(stop)
	noErr(t, "concurrent integration", <-integrated)
	head := ref.drain(t, s, store.MaxLogBatch)
	if head.Size != writers*each {
		t.Fatalf("log size %d, want %d", head.Size, writers*each)
	}
	recs, err := s.LogRecords(ctx(t), 0, store.MaxLogRecords)
	noErr(t, "LogRecords", err)
	seen := map[protocol.Digest]bool{}
	for i, r := range recs {
		if r.Index != int64(i) || seen[r.Digest] {
			t.Fatalf("record %d: index %d, repeated %v", i, r.Index, seen[r.Digest])
		}
		seen[r.Digest] = true
	}
}

func testFollowState(t *testing.T, open Opener) {
	s := open(t)
	_, err := s.FollowState(ctx(t), "https://up.example")
	wantErr(t, "FollowState before any save", err, store.ErrNotFound)
	st := store.FollowState{Upstream: "https://up.example", Applied: 7, VerifierKey: "k", Checkpoint: []byte("cp")}
	noErr(t, "SaveFollowState", s.SaveFollowState(ctx(t), st))
	st.Applied, st.Checkpoint, st.Forked, st.Evidence = 9, []byte("cp2"), true, `{"reason":"fork"}`
	noErr(t, "SaveFollowState again", s.SaveFollowState(ctx(t), st))
	noErr(t, "SaveFollowState of another", s.SaveFollowState(ctx(t), store.FollowState{Upstream: "https://other.example", VerifierKey: "o", Checkpoint: []byte{}}))
	got, err := s.FollowState(ctx(t), "https://up.example")
	noErr(t, "FollowState", err)
	if got.Applied != 9 || string(got.Checkpoint) != "cp2" || !got.Forked || got.VerifierKey != "k" || got.Evidence != `{"reason":"fork"}` {
		t.Fatalf("FollowState = %+v", got)
	}
}

// testFollowDocs: what each upstream's log says of a document is kept per
// upstream, replaced on save, listed for the document, and quarantined
// documents are listed newest first with their count.
func testFollowDocs(t *testing.T, open Opener) {
	s := open(t)
	d := protocol.Digest(sha1.Sum([]byte("# followed\n")))
	repl := protocol.Digest(sha1.Sum([]byte("# replacement\n")))
	got, err := s.FollowDocs(ctx(t), []protocol.Digest{d})
	noErr(t, "FollowDocs of nothing", err)
	if len(got) != 0 {
		t.Fatalf("FollowDocs before any save = %+v", got)
	}
	a := store.FollowDoc{Upstream: "https://a.example", Digest: d, Index: 3, Status: entity.StatusActive,
		Publisher: "acme", PublisherDisplayName: "Acme Co", PublisherDomain: "acme.example"}
	b := store.FollowDoc{Upstream: "https://b.example", Digest: d, Index: 1, Status: entity.StatusWithdrawn, Message: "spam"}
	noErr(t, "SaveFollowDocs", s.SaveFollowDocs(ctx(t), []store.FollowDoc{a, b}))
	a.Status, a.Message, a.Replacement = entity.StatusDeprecated, "use the new one", &repl
	r := store.FollowDoc{Upstream: a.Upstream, Digest: repl, Index: 4, Status: entity.StatusActive}
	noErr(t, "SaveFollowDocs again", s.SaveFollowDocs(ctx(t), []store.FollowDoc{a, r}))
	noErr(t, "SaveFollowDocs of nothing", s.SaveFollowDocs(ctx(t), nil))
	got, err = s.FollowDocs(ctx(t), []protocol.Digest{d})
	noErr(t, "FollowDocs", err)
	if len(got) != 2 || got[0].Upstream != a.Upstream || got[1].Upstream != b.Upstream {
		t.Fatalf("FollowDocs = %+v, want a then b", got)
	}
	both, err := s.FollowDocs(ctx(t), []protocol.Digest{repl, d, d})
	noErr(t, "FollowDocs of two", err)
	if len(both) != 3 {
		t.Fatalf("FollowDocs of two documents = %+v, want their 3 rows", both)
	}
	_, err = s.FollowDocs(ctx(t), make([]protocol.Digest, store.MaxResolve+1))
	wantErr(t, "FollowDocs over the cap", err, store.ErrInvalid)
	if g := got[0]; g.Status != entity.StatusDeprecated || g.Message != a.Message || g.Replacement == nil || *g.Replacement != repl ||
		g.Publisher != "acme" || g.PublisherDisplayName != "Acme Co" || g.PublisherDomain != "acme.example" || g.Index != 3 || g.Digest != d {
		t.Fatalf("FollowDocs[0] = %+v", g)
	}
	if g := got[1]; g.Status != entity.StatusWithdrawn || g.Message != "spam" || g.Replacement != nil || g.Publisher != "" {
		t.Fatalf("FollowDocs[1] = %+v", g)
	}
	seen, err := s.FollowPublisherSeen(ctx(t), a.Upstream, "acme")
	noErr(t, "FollowPublisherSeen", err)
	other, err := s.FollowPublisherSeen(ctx(t), b.Upstream, "acme")
	noErr(t, "FollowPublisherSeen of another upstream", err)
	if !seen || other {
		t.Fatalf("FollowPublisherSeen = %v for its upstream, %v for another", seen, other)
	}

	for i := range 3 {
		q := store.FollowDoc{Upstream: a.Upstream, Digest: protocol.Digest(sha1.Sum(fmt.Appendf(nil, "# bad %d\n", i))), Index: int64(10 + i),
			Status: entity.StatusActive, Quarantine: "bytes do not match"}
		noErr(t, "SaveFollowDocs quarantined", s.SaveFollowDocs(ctx(t), []store.FollowDoc{q}))
	}
	qs, total, err := s.FollowQuarantine(ctx(t), a.Upstream, 2)
	noErr(t, "FollowQuarantine", err)
	if total != 3 || len(qs) != 2 || qs[0].Index != 12 || qs[1].Index != 11 || qs[0].Quarantine == "" {
		t.Fatalf("FollowQuarantine = %+v (total %d), want the newest 2 of 3", qs, total)
	}
	if qs, total, err := s.FollowQuarantine(ctx(t), b.Upstream, 10); err != nil || total != 0 || len(qs) != 0 {
		t.Fatalf("FollowQuarantine of another upstream = %+v %d %v", qs, total, err)
	}
	_, _, err = s.FollowQuarantine(ctx(t), a.Upstream, store.MaxFollowQuarantine+1)
	wantErr(t, "FollowQuarantine over the cap", err, store.ErrInvalid)

	// FollowWithdrawn: withdrawn by the upstream, stored and served here;
	// not a quarantined row, another upstream's, or one withdrawn here.
	owed := putText(t, s, "# Owed\n\nWithdrawn upstream.\n").Digest
	done := putText(t, s, "# Done\n\nWithdrawn here too.\n").Digest
	noErr(t, "Withdraw", s.Withdraw(ctx(t), done, "gone"))
	noErr(t, "SaveFollowDocs withdrawn", s.SaveFollowDocs(ctx(t), []store.FollowDoc{
		{Upstream: a.Upstream, Digest: owed, Index: 20, Status: entity.StatusWithdrawn},
		{Upstream: a.Upstream, Digest: done, Index: 21, Status: entity.StatusWithdrawn},
		{Upstream: b.Upstream, Digest: owed, Index: 22, Status: entity.StatusActive},
		{Upstream: a.Upstream, Digest: repl, Index: 23, Status: entity.StatusWithdrawn, Quarantine: "other bytes"},
	}))
	ws, err := s.FollowWithdrawn(ctx(t), a.Upstream, 10)
	noErr(t, "FollowWithdrawn", err)
	if len(ws) != 1 || ws[0] != owed {
		t.Fatalf("FollowWithdrawn = %v, want only the document still served", ws)
	}
	if ws, err := s.FollowWithdrawn(ctx(t), b.Upstream, 10); err != nil || len(ws) != 0 {
		t.Fatalf("FollowWithdrawn of another upstream = %v %v", ws, err)
	}
	_, err = s.FollowWithdrawn(ctx(t), a.Upstream, 0)
	wantErr(t, "FollowWithdrawn of no rows", err, store.ErrInvalid)
}

func testWebhooks(t *testing.T, open Opener) {
	s := open(t)
	w, err := s.CreateWebhook(ctx(t), "https://hook.example/a", "s3cret", []string{"publish"}, 5)
	noErr(t, "CreateWebhook", err)
	if w.ID == 0 || w.Delivered != 5 || len(w.Events) != 1 || w.Secret != "s3cret" {
		t.Fatalf("CreateWebhook = %+v", w)
	}
	_, err = s.CreateWebhook(ctx(t), "https://hook.example/b", "x", []string{"publish", "withdraw"}, 0)
	noErr(t, "CreateWebhook b", err)
	now := time.Now()
	got, err := s.ClaimWebhooks(ctx(t), now, time.Minute)
	noErr(t, "ClaimWebhooks", err)
	if len(got) != 2 {
		t.Fatalf("ClaimWebhooks claimed %d, want both", len(got))
	}
	again, err := s.ClaimWebhooks(ctx(t), now, time.Minute)
	noErr(t, "ClaimWebhooks again", err)
	if len(again) != 0 {
		t.Fatalf("leased webhooks were claimed twice: %d", len(again))
	}
	since := now.Add(-time.Hour).Truncate(time.Microsecond)
	w.Delivered, w.Attempts, w.FailingSince, w.NextAt = 6, 2, &since, now.Add(time.Hour)
	noErr(t, "SaveWebhookProgress", s.SaveWebhookProgress(ctx(t), w))
	// a's lease ended but its backoff holds it; b's lease runs.
	if c, _ := s.ClaimWebhooks(ctx(t), now.Add(30*time.Second), time.Minute); len(c) != 0 {
		t.Fatalf("claimed %d during backoff and lease", len(c))
	}
	c, err := s.ClaimWebhooks(ctx(t), now.Add(2*time.Hour), time.Minute)
	noErr(t, "ClaimWebhooks later", err)
	if len(c) != 2 || c[0].Delivered != 6 || c[0].Attempts != 2 || c[0].FailingSince == nil || !c[0].FailingSince.Equal(since) {
		t.Fatalf("ClaimWebhooks after backoff = %+v", c)
	}
	noErr(t, "DeleteWebhook", s.DeleteWebhook(ctx(t), w.ID))
	wantErr(t, "DeleteWebhook twice", s.DeleteWebhook(ctx(t), w.ID), store.ErrNotFound)
	ws, err := s.ListWebhooks(ctx(t))
	noErr(t, "ListWebhooks", err)
	if len(ws) != 1 || ws[0].URL != "https://hook.example/b" || len(ws[0].Events) != 2 {
		t.Fatalf("ListWebhooks = %+v", ws)
	}
}
