package translog_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/translog"
)

// Hostile-server tests of the audit `registry verify` runs, in the manner
// of golang.org/x/mod/sumdb's client tests: fakeRegistry is an honest
// registry in memory (its log built with tlog, signed with the pinned key)
// and each test makes it tell one lie. Each names the check it guards.

type fakeRegistry struct {
	mu     sync.Mutex
	signer note.Signer
	vkey   string
	texts  [][]byte
	hashes memHashes
	docs   map[protocol.Digest][]byte
	meta   map[protocol.Digest]agora.Protocol
	gone   map[protocol.Digest]bool
	// Lies and faults.
	lookupFrom *fakeRegistry                           // answer lookups from another log
	lookupLast bool                                    // answer a document's last record, not its first
	fetch      func(d protocol.Digest) ([]byte, error) // the raw answer
	tileFault  func(path string) error                 // a tile request fails
	feedLie    func(c *translog.Change)                // the feed changes a record
	feedEmpty  bool                                    // the feed withholds every record
	calls      map[string]int
}

func newFake(t *testing.T, skey string) *fakeRegistry {
	t.Helper()
	s, err := note.NewSigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	k, err := translog.ParseKey(skey)
	if err != nil {
		t.Fatal(err)
	}
	return &fakeRegistry{signer: s, vkey: k.VerifierKey, docs: map[protocol.Digest][]byte{},
		meta: map[protocol.Digest]agora.Protocol{}, gone: map[protocol.Digest]bool{}, calls: map[string]int{}}
}

func fakeKey(t *testing.T) string {
	k, err := translog.GenerateKey("fake.example/log")
	if err != nil {
		t.Fatal(err)
	}
	return k
}

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// record appends a record to the log.
func (f *fakeRegistry) record(t *testing.T, r agora.LogRecord) {
	t.Helper()
	text, err := agora.FormatLogRecord(r)
	if err != nil {
		t.Fatal(err)
	}
	hs, err := tlog.StoredHashes(int64(len(f.texts)), text, &f.hashes)
	if err != nil {
		t.Fatal(err)
	}
	f.texts, f.hashes = append(f.texts, text), append(f.hashes, hs...)
}

// publish stores and logs a document (attested by publisher when set).
func (f *fakeRegistry) publish(t *testing.T, text, publisher string) protocol.Digest {
	t.Helper()
	doc := []byte(text)
	sums, err := agora.Hash(doc)
	if err != nil {
		t.Fatal(err)
	}
	f.record(t, agora.LogRecord{Event: agora.LogEventPublish, Digest: sums.SHA1, SHA256: sha256.Sum256(doc), Size: len(doc),
		Time: t0.Add(time.Duration(len(f.texts)) * time.Second), Attested: agora.LogAttestation{Publisher: publisher}})
	f.docs[sums.SHA1] = doc
	f.meta[sums.SHA1] = agora.Protocol{Hex: sums.SHA1.Hex(), Status: "active", Publisher: publisher}
	return sums.SHA1
}

// status logs and applies a status change.
func (f *fakeRegistry) status(t *testing.T, d protocol.Digest, event, status string) {
	t.Helper()
	doc := f.docs[d]
	f.record(t, agora.LogRecord{Event: event, Digest: d, SHA256: sha256.Sum256(doc), Size: len(doc),
		Time: t0.Add(time.Duration(len(f.texts)) * time.Second), Status: status})
	if status == "withdrawn" {
		f.gone[d] = true
	}
	m := f.meta[d]
	m.Status = status
	f.meta[d] = m
}

func (f *fakeRegistry) count(what string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls[what]++
	return f.calls[what]
}

func (f *fakeRegistry) LogCheckpoint(context.Context) ([]byte, error) {
	n := int64(len(f.texts))
	root, err := tlog.TreeHash(n, &f.hashes)
	if err != nil {
		return nil, err
	}
	return translog.SignCheckpoint(agora.LogCheckpoint{Origin: f.signer.Name(), Tree: tlog.Tree{N: n, Hash: root}}, f.signer)
}

func (f *fakeRegistry) LogTile(_ context.Context, path string) ([]byte, error) {
	f.count("tile")
	if f.tileFault != nil {
		if err := f.tileFault(path); err != nil {
			return nil, err
		}
	}
	tile, err := tlog.ParseTilePath(path)
	if err != nil {
		return nil, err
	}
	if f.lookupFrom != nil && tile.N<<8+int64(tile.W) > int64(len(f.texts)) {
		return f.lookupFrom.LogTile(context.Background(), path) // the other log's tiles past this one
	}
	if tile.L == -1 {
		var out []byte
		for i := tile.N << 8; i < tile.N<<8+int64(tile.W); i++ {
			out = append(append(out, f.texts[i]...), '\n')
		}
		return out, nil
	}
	return tlog.ReadTileData(tile, &f.hashes)
}

func (f *fakeRegistry) LogLookup(ctx context.Context, d agora.Digest) ([]byte, error) {
	if f.lookupFrom != nil {
		return f.lookupFrom.LogLookup(ctx, d)
	}
	for j := range f.texts {
		i := j
		if f.lookupLast {
			i = len(f.texts) - 1 - j
		}
		text := f.texts[i]
		r, err := agora.ParseLogRecord(text)
		if err == nil && r.Digest == d {
			msg, err := tlog.FormatRecord(int64(i), text)
			if err != nil {
				return nil, err
			}
			cp, err := f.LogCheckpoint(ctx)
			return append(msg, cp...), err
		}
	}
	return nil, &agora.RegistryError{Status: 404, Code: "not_logged"}
}

func (f *fakeRegistry) Fetch(_ context.Context, d agora.Digest) ([]byte, error) {
	if f.fetch != nil {
		return f.fetch(d)
	}
	return f.honestFetch(d)
}

func (f *fakeRegistry) honestFetch(d agora.Digest) ([]byte, error) {
	switch doc, ok := f.docs[d]; {
	case f.gone[d]:
		return nil, &agora.RegistryError{Status: 410, Code: "withdrawn"}
	case !ok:
		return nil, &agora.RegistryError{Status: 404, Code: "not_found"}
	default:
		return doc, nil
	}
}

func (f *fakeRegistry) Get(_ context.Context, d agora.Digest, _ bool) (agora.Protocol, error) {
	m, ok := f.meta[d]
	switch {
	case !ok:
		return agora.Protocol{}, &agora.RegistryError{Status: 404, Code: "not_found"}
	case m.Status == "withdrawn":
		return agora.Protocol{}, &agora.RegistryError{Status: 410, Code: "withdrawn"}
	}
	return m, nil
}

func (f *fakeRegistry) JSON(_ context.Context, _, path string, _ []byte) (json.RawMessage, error) {
	u, err := url.Parse(path)
	if err != nil || u.Path != "/api/v1/changes" {
		return nil, fmt.Errorf("unexpected JSON request %s", path)
	}
	after, _ := strconv.ParseInt(u.Query().Get("after"), 10, 64)
	limit, _ := strconv.Atoi(u.Query().Get("limit"))
	out := translog.Changes{Changes: []translog.Change{}, Next: after, TreeSize: int64(len(f.texts))}
	for i := after; !f.feedEmpty && i < int64(len(f.texts)) && len(out.Changes) < limit; i++ {
		r, _ := agora.ParseLogRecord(f.texts[i])
		c := translog.Change{Index: i, Event: r.Event, Hex: r.Digest.Hex(), Base64: r.Digest.Base64(),
			SHA256: hex.EncodeToString(r.SHA256[:]), Size: r.Size, Time: r.Time, Status: r.Status, Reason: r.Reason}
		if f.feedLie != nil {
			f.feedLie(&c)
		}
		out.Changes = append(out.Changes, c)
		out.Next = i + 1
	}
	return json.Marshal(out)
}

// audit runs one audit of hashes (none: --all) and returns it.
func audit(t *testing.T, f *fakeRegistry, st translog.State, hashes ...protocol.Digest) translog.Audit {
	t.Helper()
	if st.VerifierKey == "" {
		st.VerifierKey = f.vkey
	}
	a, err := translog.RunAudit(context.Background(), f, st, translog.AuditOptions{Hashes: hashes, All: len(hashes) == 0})
	if err != nil {
		t.Fatalf("audit: %v", err)
	}
	return a
}

// wantExit fails unless the audit's exit status is want; for 1 the
// message of the failing check must mention what.
func wantExit(t *testing.T, a translog.Audit, want int, what string) {
	t.Helper()
	if got := a.Exit(); got != want {
		t.Fatalf("exit %d, want %d (%s); results %+v feed %v fork %+v", got, want, what, a.Results, a.Feed, a.Fork)
	}
	if want != 1 || what == "" {
		return
	}
	var msgs []string
	for _, r := range a.Results {
		if r.Err != nil {
			msgs = append(msgs, r.Err.Error())
		}
	}
	if a.Feed != nil {
		msgs = append(msgs, a.Feed.Error())
	}
	if a.Fork != nil {
		msgs = append(msgs, a.Fork.Err.Error())
	}
	if !strings.Contains(strings.Join(msgs, "\n"), what) {
		t.Fatalf("the inconsistency found is not %q: %v", what, msgs)
	}
}

// honestFake is a registry of a few documents, one deprecated and one
// withdrawn; it audits clean.
func honestFake(t *testing.T) (*fakeRegistry, []protocol.Digest) {
	f := newFake(t, fakeKey(t))
	var ds []protocol.Digest
	for i := range 5 {
		ds = append(ds, f.publish(t, fmt.Sprintf("# Doc %d\n\nBody %d.\n", i, i), "acme"))
	}
	f.status(t, ds[1], agora.LogEventDeprecate, "deprecated")
	f.status(t, ds[2], agora.LogEventWithdraw, "withdrawn")
	return f, ds
}

func TestHonestRegistryAuditsClean(t *testing.T) {
	f, ds := honestFake(t)
	a := audit(t, f, translog.State{}, ds...)
	wantExit(t, a, 0, "")
	if a.Scanned != 7 || len(a.Results) != 5 || a.Results[1].Status != "deprecated" || a.Results[2].Status != "withdrawn" {
		t.Fatalf("audit: scanned %d, results %+v", a.Scanned, a.Results)
	}
	all := audit(t, f, a.State)
	wantExit(t, all, 0, "")
	if len(all.Results) != 5 || all.Previous == nil {
		t.Fatalf("--all checked %d documents (previous %v)", len(all.Results), all.Previous)
	}
	sampled, err := translog.RunAudit(context.Background(), f, a.State, translog.AuditOptions{Sample: 2})
	if err != nil || len(sampled.Results) != 2 || sampled.Exit() != 0 {
		t.Fatalf("--sample 2: %d results, %v", len(sampled.Results), err)
	}
}

// Check: the bytes served under a hash are that document (SHA-1). A
// registry whose database bytes were changed serves other bytes.
func TestAuditChangedBytes(t *testing.T) {
	f, ds := honestFake(t)
	f.fetch = func(d protocol.Digest) ([]byte, error) {
		doc, err := f.honestFetch(d)
		if d == ds[0] {
			doc = append([]byte(nil), doc...)
			doc[2] ^= 1 // same length
			return doc, agora.Verify(doc, d)
		}
		return doc, err
	}
	wantExit(t, audit(t, f, translog.State{}, ds[0]), 1, "not that document")
	wantExit(t, audit(t, f, translog.State{}), 1, "not that document") // cron mode finds it too
}

// Checks: the served bytes' SHA-256 and size are the log record's (the
// SHA-1 is not collision-proof). A log whose record of the SHA-1 names
// other bytes.
func TestAuditSHA256AndSizeAgainstTheRecord(t *testing.T) {
	for name, edit := range map[string]func(*agora.LogRecord){
		"sha256": func(r *agora.LogRecord) { r.SHA256[0] ^= 1 },
		"size":   func(r *agora.LogRecord) { r.Size-- },
	} {
		t.Run(name, func(t *testing.T) {
			f := newFake(t, fakeKey(t))
			doc := []byte("# Collided\n")
			sums, _ := agora.Hash(doc)
			r := agora.LogRecord{Event: agora.LogEventPublish, Digest: sums.SHA1, SHA256: sha256.Sum256(doc), Size: len(doc), Time: t0}
			edit(&r)
			f.record(t, r)
			f.docs[sums.SHA1] = doc
			f.meta[sums.SHA1] = agora.Protocol{Status: "active"}
			wantExit(t, audit(t, f, translog.State{}, sums.SHA1), 1, "its log records")
		})
	}
}

// Check: a document the log withdrew is not served. The database's
// withdrawal was undone: the raw bytes are served again (the metadata
// still says withdrawn, or says active).
func TestAuditUndoneWithdrawal(t *testing.T) {
	f, ds := honestFake(t)
	f.fetch = func(d protocol.Digest) ([]byte, error) { return f.docs[d], nil } // ignores withdrawals
	wantExit(t, audit(t, f, translog.State{}, ds[2]), 1, "records withdrawn")
	m := f.meta[ds[2]]
	m.Status = "active"
	f.meta[ds[2]] = m
	wantExit(t, audit(t, f, translog.State{}, ds[2]), 1, "")
}

// Check: a document the log has not withdrawn is served: an answer of
// 410 without a logged withdrawal is a registry ahead of (or lying about)
// its log.
func TestAuditUnloggedWithdrawal(t *testing.T) {
	f, ds := honestFake(t)
	f.gone[ds[0]] = true
	wantExit(t, audit(t, f, translog.State{}, ds[0]), 1, "records no withdrawal")
}

// Check: the status the registry reports is the log's latest. The
// database's deprecation was undone without a logged reactivation.
func TestAuditStatusAgainstTheLog(t *testing.T) {
	f, ds := honestFake(t)
	m := f.meta[ds[1]]
	m.Status = "active"
	f.meta[ds[1]] = m
	wantExit(t, audit(t, f, translog.State{}, ds[1]), 1, "its log says deprecated")
}

// Check: the publisher the registry names is the one the record attests.
func TestAuditPublisherAgainstTheRecord(t *testing.T) {
	f, ds := honestFake(t)
	m := f.meta[ds[3]]
	m.Publisher = "mallory"
	f.meta[ds[3]] = m
	wantExit(t, audit(t, f, translog.State{}, ds[3]), 1, "its log attests")
}

// Check: the change feed serves the records the signed tree holds.
func TestAuditFeedAgainstTheTree(t *testing.T) {
	f, _ := honestFake(t)
	f.feedLie = func(c *translog.Change) {
		if c.Index == 6 {
			c.Event = agora.LogEventReactivate
		}
	}
	wantExit(t, audit(t, f, translog.State{}), 1, "change feed's record 6")

	// A feed that answers nothing while its tree size says it holds the
	// records withholds them: not "change feed ok".
	f, _ = honestFake(t)
	f.feedEmpty = true
	wantExit(t, audit(t, f, translog.State{}), 1, "withholds")
}

// Check: a lookup's checkpoint is proved consistent with the audit's. The
// registry answers lookups from a forked log that holds the same first
// records (so the record and its index are the honest ones).
func TestAuditForkSeenDuringAProof(t *testing.T) {
	skey := fakeKey(t)
	honest, forked := newFake(t, skey), newFake(t, skey)
	var ds []protocol.Digest
	for i := range 3 {
		ds = append(ds, honest.publish(t, fmt.Sprintf("# Doc %d\n", i), ""))
		forked.publish(t, fmt.Sprintf("# Doc %d\n", i), "")
	}
	honest.publish(t, "# Honest\n", "")
	forked.publish(t, "# Forked\n", "")
	forked.publish(t, "# Forked more\n", "")
	honest.lookupFrom = forked
	a := audit(t, honest, translog.State{}, ds[0])
	wantExit(t, a, 1, "does not extend")
	if a.Fork == nil || string(a.Fork.Older) == string(a.Fork.Newer) {
		t.Fatalf("no fork evidence: %+v", a.Fork)
	}
}

// Check: a remembered checkpoint is proved consistent with the latest,
// from every small size on. The registry rewrote its first record.
func TestAuditForkFromSizeOne(t *testing.T) {
	skey := fakeKey(t)
	honest, forked := newFake(t, skey), newFake(t, skey)
	honest.publish(t, "# First\n", "")
	forked.publish(t, "# Rewritten first\n", "")
	forked.publish(t, "# Second\n", "")
	a := audit(t, honest, translog.State{})
	wantExit(t, a, 0, "")
	b := audit(t, forked, a.State)
	wantExit(t, b, 1, "does not extend")
}

// Check: a transient failure is retried, and one that lasts is "could not
// check" (exit 2), never a fork or a mismatch (exit 1).
func TestAuditTransient503(t *testing.T) {
	f, ds := honestFake(t)
	first := audit(t, f, translog.State{})
	f.publish(t, "# Later\n", "")
	unavailable := &agora.RegistryError{Status: 503, Message: "Service Unavailable"}
	st := first.State
	st.VerifierKey = f.vkey

	f.tileFault = func(string) error {
		if f.count("fault")%2 == 1 {
			return unavailable // every other request
		}
		return nil
	}
	retrying := translog.Retry{Registry: f, Attempts: 3, Backoff: time.Millisecond}
	a, err := translog.RunAudit(context.Background(), retrying, st, translog.AuditOptions{Hashes: ds})
	if err != nil || a.Exit() != 0 {
		t.Fatalf("a registry failing every other request, retried: exit %d, %v %+v", a.Exit(), err, a.Results)
	}

	f.tileFault = func(string) error { return unavailable }
	a, err = translog.RunAudit(context.Background(), retrying, st, translog.AuditOptions{Hashes: ds})
	if a.Fork != nil || err == nil || translog.Proven(err) || errors.Is(err, agora.ErrLogFork) {
		t.Fatalf("a registry whose tiles answer 503: fork %+v, %v; want an error that is not proven", a.Fork, err)
	}
}

// Check: the lookup answers the document's first (publish) record, the
// one the scan of the tree found. The registry answers its withdrawal
// record instead (a genuine record of the document, proved included).
func TestAuditLookupAnswersAnotherRecord(t *testing.T) {
	f, ds := honestFake(t)
	f.lookupLast = true
	wantExit(t, audit(t, f, translog.State{}, ds[2]), 1, "the log's first record of it is 2")
}
