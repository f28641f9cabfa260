package follow_test

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/client"
	"github.com/agora-registry/registry/internal/follow"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/testing/security"
	"github.com/agora-registry/registry/internal/translog"
)

// fakeLog is a hostile upstream in the style of golang.org/x/mod/sumdb's
// client tests: a transparency log built record by record with tlog and
// signed with a note key, served on loopback, whose every answer a test
// can replace (hook) or whose history it can rewrite under the same key.
type fakeLog struct {
	t      *testing.T
	key    translog.Key
	origin string
	URL    string

	mu      sync.Mutex
	records [][]byte
	hashes  []tlog.Hash
	docs    map[protocol.Digest][]byte
	// served is the size of the checkpoint served (-1: every record);
	// claim, when set, is the size the change feed announces.
	served int64
	claim  func(size int64) int64
	// hook answers a request in place of the log when it returns true.
	hook func(w http.ResponseWriter, r *http.Request) bool

	requests atomic.Int64
}

// newFakeLog starts a fake upstream signing with a new key named origin,
// or with skey when given (another history under the same key).
func newFakeLog(t *testing.T, origin, skey string) *fakeLog {
	t.Helper()
	if skey == "" {
		var err error
		if skey, err = translog.GenerateKey(origin); err != nil {
			t.Fatal(err)
		}
	}
	key, err := translog.ParseKey(skey)
	if err != nil {
		t.Fatal(err)
	}
	l := &fakeLog{t: t, key: key, origin: origin, docs: map[protocol.Digest][]byte{}, served: -1}
	srv := httptest.NewServer(http.HandlerFunc(l.serve))
	t.Cleanup(srv.Close)
	l.URL = srv.URL
	return l
}

// skey is the fake's signer key, to start another history under it.
func generateKey(t *testing.T, origin string) string {
	skey, err := translog.GenerateKey(origin)
	if err != nil {
		t.Fatal(err)
	}
	return skey
}

func (l *fakeLog) hashReader() tlog.HashReader {
	return tlog.HashReaderFunc(func(idx []int64) ([]tlog.Hash, error) {
		out := make([]tlog.Hash, len(idx))
		for i, x := range idx {
			if x >= int64(len(l.hashes)) {
				return nil, errors.New("no such hash")
			}
			out[i] = l.hashes[x]
		}
		return out, nil
	})
}

// add appends a record.
func (l *fakeLog) add(r agora.LogRecord) {
	l.t.Helper()
	if r.Time.IsZero() {
		r.Time = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	}
	text, err := agora.FormatLogRecord(r)
	if err != nil {
		l.t.Fatal(err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	hs, err := tlog.StoredHashes(int64(len(l.records)), text, l.hashReader())
	if err != nil {
		l.t.Fatal(err)
	}
	l.records = append(l.records, text)
	l.hashes = append(l.hashes, hs...)
}

// publish logs a document (and serves it) with an attestation.
func (l *fakeLog) publish(doc string, a agora.LogAttestation) protocol.Digest {
	d := protocol.Digest(sha1.Sum([]byte(doc)))
	l.mu.Lock()
	l.docs[d] = []byte(doc)
	l.mu.Unlock()
	l.add(agora.LogRecord{Event: agora.LogEventPublish, Digest: d, SHA256: sha256.Sum256([]byte(doc)), Size: len(doc), Attested: a})
	return d
}

// status logs a status change of a document with the bytes doc.
func (l *fakeLog) status(event, status, reason, doc string, a agora.LogAttestation) {
	l.add(agora.LogRecord{Event: event, Digest: protocol.Digest(sha1.Sum([]byte(doc))), SHA256: sha256.Sum256([]byte(doc)),
		Size: len(doc), Status: status, Reason: reason, Attested: a})
}

// size is the size of the checkpoint served.
func (l *fakeLog) size() int64 {
	if l.served >= 0 {
		return l.served
	}
	return int64(len(l.records))
}

// checkpoint signs the checkpoint of the first n records.
func (l *fakeLog) checkpoint(n int64) []byte {
	l.t.Helper()
	h, err := tlog.TreeHash(n, l.hashReader())
	if err != nil {
		l.t.Fatal(err)
	}
	msg, err := translog.SignCheckpoint(agora.LogCheckpoint{Origin: l.origin, Tree: tlog.Tree{N: n, Hash: h}}, l.key.Signer)
	if err != nil {
		l.t.Fatal(err)
	}
	return msg
}

func (l *fakeLog) serve(w http.ResponseWriter, r *http.Request) {
	l.requests.Add(1)
	l.mu.Lock()
	hook := l.hook
	l.mu.Unlock()
	if hook != nil && hook(w, r) {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	p := r.URL.Path
	switch {
	case p == "/.well-known/agora":
		json.NewEncoder(w).Encode(map[string]any{"name": "fake", "log": map[string]string{"origin": l.origin, "verifierKey": l.key.VerifierKey}})
	case p == "/log/checkpoint":
		w.Write(l.checkpoint(l.size()))
	case strings.HasPrefix(p, "/log/tile/"):
		t, err := tlog.ParseTilePath(strings.TrimPrefix(p, "/log/"))
		if err != nil {
			http.Error(w, "bad tile", http.StatusBadRequest)
			return
		}
		if t.L == -1 {
			first := t.N << translog.TileHeight
			if first+int64(t.W) > int64(len(l.records)) {
				http.NotFound(w, r)
				return
			}
			var data []byte
			for _, rec := range l.records[first : first+int64(t.W)] {
				data = append(data, rec...)
				data = append(data, '\n')
			}
			w.Write(data)
			return
		}
		data, err := tlog.ReadTileData(t, l.hashReader())
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Write(data)
	case strings.HasPrefix(p, "/log/lookup/"):
		d, err := protocol.ParseDigest(strings.TrimPrefix(p, "/log/lookup/"))
		if err != nil {
			http.Error(w, "bad hash", http.StatusBadRequest)
			return
		}
		for i, rec := range l.records[:l.size()] {
			if pr, err := agora.ParseLogRecord(rec); err == nil && pr.Digest == d && pr.Event == agora.LogEventPublish {
				msg, _ := tlog.FormatRecord(int64(i), rec)
				w.Write(append(msg, l.checkpoint(l.size())...))
				return
			}
		}
		http.NotFound(w, r)
	case strings.HasPrefix(p, "/protocol/"):
		d, err := protocol.ParseDigest(strings.TrimPrefix(p, "/protocol/"))
		if doc, ok := l.docs[d]; err == nil && ok {
			w.Write(doc)
			return
		}
		http.NotFound(w, r)
	case p == "/api/v1/changes":
		after, _ := strconv.ParseInt(r.URL.Query().Get("after"), 10, 64)
		n := l.size()
		if l.claim != nil {
			n = l.claim(n)
		}
		_ = after
		json.NewEncoder(w).Encode(map[string]any{"treeSize": n, "items": []any{}})
	default:
		http.NotFound(w, r)
	}
}

// setHook replaces the log's answers while hook returns true.
func (l *fakeLog) setHook(hook func(w http.ResponseWriter, r *http.Request) bool) {
	l.mu.Lock()
	l.hook = hook
	l.mu.Unlock()
}

// sleeper is an injected Sleep: it records each pause and returns at once,
// and ends the run after max pauses.
type sleeper struct {
	mu     sync.Mutex
	pauses []time.Duration
	max    int
	stop   context.CancelFunc
	onNap  func(n int)
}

func (s *sleeper) sleep(ctx context.Context, d time.Duration) {
	s.mu.Lock()
	s.pauses = append(s.pauses, d)
	n := len(s.pauses)
	s.mu.Unlock()
	if s.onNap != nil {
		s.onNap(n)
	}
	if s.max > 0 && n >= s.max {
		s.stop()
	}
}

func (s *sleeper) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.pauses)
}

// followFake is a follower of a fake (or any URL) into here with fast
// timing and an injected sleeper (nil: the real one).
func followFake(t *testing.T, url string, here *security.Server, s *sleeper) *follow.Follower {
	t.Helper()
	c, err := client.New(url, &http.Client{Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	tm := follow.Timing{Wait: 50 * time.Millisecond, MinBackoff: 10 * time.Millisecond, MaxBackoff: 80 * time.Millisecond,
		Jitter: func() float64 { return 0.999 }}
	if s != nil {
		tm.Sleep = s.sleep
	}
	return follow.New(c, here.Svc, here.Store, slog.New(slog.DiscardHandler), tm)
}

// stepUntilCaughtUp steps f until it has applied the fake's served size.
func stepUntilCaughtUp(t *testing.T, f *follow.Follower, l *fakeLog) {
	t.Helper()
	l.mu.Lock()
	want := l.size()
	l.mu.Unlock()
	for range 50 {
		if err := f.Step(ctx(t)); err != nil {
			t.Fatalf("Step: %v", err)
		}
		if st := f.Status(); st.Applied == want && st.Lag == 0 {
			return
		}
	}
	t.Fatalf("the follower did not catch up: %+v, want %d applied", f.Status(), want)
}
