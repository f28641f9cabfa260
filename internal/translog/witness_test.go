package translog_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"filippo.io/torchwood"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/postgres"
	"github.com/agora-registry/registry/internal/testing/pgtest"
	"github.com/agora-registry/registry/internal/testing/security"
	"github.com/agora-registry/registry/internal/testing/witnesstest"
	"github.com/agora-registry/registry/internal/translog"
)

// fakeWitness is a c2sp.org/tlog-witness witness in memory (state,
// consistency proofs and cosignatures as the spec says) whose answers a
// test can replace.
type fakeWitness struct {
	t      testing.TB
	name   string
	signer *torchwood.CosignatureSigner
	vkey   string
	logKey note.Verifier
	srv    *httptest.Server

	mu          sync.Mutex
	size        int64
	root        tlog.Hash
	olds        []int64 // the old size of each request
	inFlight    int
	maxInFlight int
	// answer, when set, answers instead of the witness (nil: as the spec).
	answer func(w http.ResponseWriter, old int64, checkpoint []byte) bool
}

func newFakeWitness(t testing.TB, name string, l *translog.Log) *fakeWitness {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := torchwood.NewCosignatureSigner(name, priv)
	if err != nil {
		t.Fatal(err)
	}
	lk, err := note.NewVerifier(l.VerifierKey())
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeWitness{t: t, name: name, signer: s, vkey: s.Verifier().String(), logKey: lk}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeWitness) witness(t testing.TB) translog.Witness {
	t.Helper()
	w, err := translog.ParseWitness(f.vkey + "@" + f.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func (f *fakeWitness) requests() []int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]int64(nil), f.olds...)
}

// cosignature is signer's cosignature line of a signed checkpoint.
func cosignature(t testing.TB, signer note.Signer, checkpoint []byte) string {
	t.Helper()
	text, _, _ := bytes.Cut(checkpoint, []byte("\n\n"))
	signed, err := note.Sign(&note.Note{Text: string(text) + "\n"}, signer)
	if err != nil {
		t.Fatal(err)
	}
	return string(signed[bytes.LastIndex(signed, []byte("\n\n"))+2:])
}

func (f *fakeWitness) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/add-checkpoint" {
		http.NotFound(w, r)
		return
	}
	f.mu.Lock()
	f.inFlight++
	f.maxInFlight = max(f.maxInFlight, f.inFlight)
	answer := f.answer
	f.mu.Unlock()
	defer func() { f.mu.Lock(); f.inFlight--; f.mu.Unlock() }()
	body, _ := io.ReadAll(r.Body)
	head, cp, ok := bytes.Cut(body, []byte("\n\n"))
	lines := strings.Split(string(head), "\n")
	old, err := strconv.ParseInt(strings.TrimPrefix(lines[0], "old "), 10, 64)
	if !ok || err != nil || !strings.HasPrefix(lines[0], "old ") {
		http.Error(w, "malformed", http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.olds = append(f.olds, old)
	f.mu.Unlock()
	if answer != nil && answer(w, old, cp) {
		return
	}
	n, err := note.Open(cp, note.VerifierList(f.logKey))
	if err != nil {
		http.Error(w, "bad signature", http.StatusForbidden)
		return
	}
	c, err := agora.ParseLogCheckpoint(n.Text)
	if err != nil {
		http.Error(w, "bad checkpoint", http.StatusBadRequest)
		return
	}
	var proof tlog.TreeProof
	for _, l := range lines[1:] {
		h, err := tlog.ParseHash(l)
		if err != nil {
			http.Error(w, "bad proof line", http.StatusBadRequest)
			return
		}
		proof = append(proof, h)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if old != f.size {
		w.Header().Set("Content-Type", "text/x.tlog.size")
		w.WriteHeader(http.StatusConflict)
		fmt.Fprintf(w, "%d\n", f.size)
		return
	}
	if old > c.N || (old > 0 && tlog.CheckTree(proof, c.N, c.Hash, old, f.root) != nil) {
		http.Error(w, "bad proof", http.StatusUnprocessableEntity)
		return
	}
	f.size, f.root = c.N, c.Hash
	io.WriteString(w, cosignature(f.t, f.signer, cp))
}

// witnessed is a registry whose log asks ws (run by hand: Round).
func witnessed(t testing.TB, srv *security.Server, quorum int, ws ...translog.Witness) *translog.Cosigner {
	t.Helper()
	c, err := srv.Log.NewCosigner(ws, quorum, &http.Client{})
	if err != nil {
		t.Fatal(err)
	}
	c.Timeout, c.MinBackoff, c.MaxBackoff = 5*time.Second, time.Hour, time.Hour
	return c
}

// servedCosignatures fetches /log/checkpoint, verifies the log's signature
// and returns the names of the witnesses whose cosignature verifies with
// their key; a signature line of a listed key that does not verify fails.
func servedCosignatures(t testing.TB, srv *security.Server, witnessKeys ...string) (agora.LogCheckpoint, []string) {
	t.Helper()
	code, _, body := get(t, srv.URL+"/log/checkpoint")
	if code != http.StatusOK {
		t.Fatalf("GET /log/checkpoint = %d %s", code, body)
	}
	lk, err := note.NewVerifier(srv.Log.VerifierKey())
	if err != nil {
		t.Fatal(err)
	}
	vs := []note.Verifier{lk}
	for _, k := range witnessKeys {
		v, _, err := agora.ParseWitnessKey(k)
		if err != nil {
			t.Fatal(err)
		}
		vs = append(vs, v)
	}
	n, err := note.Open(body, note.VerifierList(vs...))
	if err != nil {
		t.Fatalf("the served checkpoint does not verify: %v\n%s", err, body)
	}
	cp, err := agora.ParseLogCheckpoint(n.Text)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range n.Sigs {
		if s.Hash != lk.KeyHash() {
			names = append(names, s.Name)
		}
	}
	if len(n.UnverifiedSigs) != 0 {
		t.Fatalf("the served checkpoint carries signatures of no configured key: %+v\n%s", n.UnverifiedSigs, body)
	}
	return cp, names
}

// TestWitnessLitewitnessCosigns: against the real litewitness, on both
// engines, each new checkpoint is sent with a consistency proof from the
// witness's size and served with its cosignature, which verifies with the
// witness's key; a lost witness state is resynchronised from the 409.
func TestWitnessLitewitnessCosigns(t *testing.T) {
	for _, engine := range security.Engines {
		t.Run(engine, func(t *testing.T) {
			srv := security.Start(t, security.Options{Engine: engine})
			publish(t, srv, "witnessed", 3)
			integrate(t, srv)
			lw := witnesstest.Start(t, "witness.test/lite", srv.Log.Origin(), srv.Log.VerifierKey())
			w, err := translog.ParseWitness(lw.VerifierKey + "@" + lw.URL)
			if err != nil {
				t.Fatal(err)
			}
			c := witnessed(t, srv, 1, w)
			c.Round(ctx(t))
			cp, names := servedCosignatures(t, srv, lw.VerifierKey)
			if len(names) != 1 || names[0] != "witness.test/lite" {
				t.Fatalf("checkpoint of size %d cosigned by %v, want the litewitness", cp.N, names)
			}
			first := cp.N

			publish(t, srv, "witnessed later", 2)
			integrate(t, srv)
			c.Round(ctx(t))
			cp, names = servedCosignatures(t, srv, lw.VerifierKey)
			if cp.N != first+2 || len(names) != 1 {
				t.Fatalf("after growing to %d: cosigned by %v", cp.N, names)
			}
			if got := lw.Size(t, srv.Log.Origin()); got != strconv.FormatInt(cp.N, 10) {
				t.Fatalf("litewitness holds size %s, want %d", got, cp.N)
			}

			// The registry lost what it knew (a restored database): the
			// witness's 409 tells it the size to prove from.
			if err := srv.Store.SaveWitnessState(ctx(t), store.WitnessState{Key: w.Key}); err != nil {
				t.Fatal(err)
			}
			publish(t, srv, "witnessed after a loss", 1)
			integrate(t, srv)
			c.Round(ctx(t))
			cp, names = servedCosignatures(t, srv, lw.VerifierKey)
			if cp.N != first+3 || len(names) != 1 {
				t.Fatalf("after a 409 resync at %d: cosigned by %v", cp.N, names)
			}
			n, _, ws, err := c.Status(ctx(t))
			if err != nil || n != 1 || ws[0].Failures != 0 {
				t.Fatalf("Status = %d, %+v, %v", n, ws, err)
			}
		})
	}
}

// TestWitnessDownNeverBlocksPublishing: with the witness unreachable,
// publishing and the checkpoint work, the checkpoint carries no
// cosignature, the failure is counted and backed off, and a later round
// gets the cosignature once the witness is back.
func TestWitnessDownNeverBlocksPublishing(t *testing.T) {
	srv := security.Start(t, security.Options{})
	f := newFakeWitness(t, "witness.test/down", srv.Log)
	down := true
	f.answer = func(w http.ResponseWriter, _ int64, _ []byte) bool {
		if down {
			hj, _ := w.(http.Hijacker)
			conn, _, _ := hj.Hijack()
			conn.Close() // the connection drops: no answer at all
		}
		return down
	}
	c := witnessed(t, srv, 1, f.witness(t))
	publish(t, srv, "down", 2)
	integrate(t, srv)
	c.Round(ctx(t))
	if _, names := servedCosignatures(t, srv, f.vkey); len(names) != 0 {
		t.Fatalf("cosigned by %v while the witness is down", names)
	}
	n, _, ws, err := c.Status(ctx(t))
	if err != nil || n != 0 || ws[0].Failures != 1 || ws[0].LastError == "" {
		t.Fatalf("Status = %d, %+v, %v; want 0 cosignatures and 1 failure", n, ws, err)
	}
	logPageSays(t, srv, "carries 0 of the 1 cosignatures", "below its quorum", "<code>witness.test/down</code>: not cosigned", "last request to it failed")
	if _, _, body := get(t, srv.URL+"/log"); strings.Contains(string(body), ws[0].LastError) {
		t.Errorf("the /log page shows the failure's text %q (it may name private addresses)", ws[0].LastError)
	}
	c.Round(ctx(t)) // backing off: no request
	if got := len(f.requests()); got != 1 {
		t.Fatalf("%d requests to a failing witness inside its backoff, want 1", got)
	}

	f.mu.Lock()
	down = false
	f.mu.Unlock()
	c.MinBackoff = time.Millisecond
	c.Round(ctx(t)) // still in the hour's backoff taken before
	c2 := witnessed(t, srv, 1, f.witness(t))
	c2.Round(ctx(t)) // a fresh process (no backoff) retries
	if _, names := servedCosignatures(t, srv, f.vkey); len(names) != 1 {
		t.Fatalf("cosigned by %v once the witness is back, want it", names)
	}
	logPageSays(t, srv, "carries 1 of the 1 cosignatures", "<code>witness.test/down</code>: cosigned, has seen 2 records")
}

// logPageSays checks that the /log page for people says each of want.
func logPageSays(t *testing.T, srv *security.Server, want ...string) {
	t.Helper()
	code, _, body := get(t, srv.URL+"/log")
	if code != http.StatusOK {
		t.Fatalf("GET /log = %d", code)
	}
	for _, w := range want {
		if !strings.Contains(string(body), w) {
			t.Errorf("the /log page does not say %q", w)
		}
	}
}

// TestWitnessRefusals: 400, 403, 404, 422 and 500 are failures (counted,
// backed off, said in the status) that serve no cosignature.
func TestWitnessRefusals(t *testing.T) {
	for _, code := range []int{http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound, http.StatusUnprocessableEntity, http.StatusInternalServerError} {
		t.Run(strconv.Itoa(code), func(t *testing.T) {
			srv := security.Start(t, security.Options{})
			f := newFakeWitness(t, "witness.test/refuses", srv.Log)
			f.answer = func(w http.ResponseWriter, _ int64, _ []byte) bool {
				http.Error(w, "no", code)
				return true
			}
			c := witnessed(t, srv, 1, f.witness(t))
			publish(t, srv, "refused", 1)
			integrate(t, srv)
			c.Round(ctx(t))
			c.Round(ctx(t))
			if _, names := servedCosignatures(t, srv, f.vkey); len(names) != 0 {
				t.Fatalf("cosigned by %v after a %d", names, code)
			}
			_, _, ws, _ := c.Status(ctx(t))
			if ws[0].Failures != 1 || !strings.Contains(ws[0].LastError, strconv.Itoa(code)) || len(f.requests()) != 1 {
				t.Fatalf("after a %d: %+v, %d requests", code, ws[0], len(f.requests()))
			}
		})
	}
}

// TestWitnessConflictResyncs: a witness holding another size than the
// registry knows answers 409 with it, and the registry sends again from
// that size with the proof from it.
func TestWitnessConflictResyncs(t *testing.T) {
	srv := security.Start(t, security.Options{})
	f := newFakeWitness(t, "witness.test/ahead", srv.Log)
	c := witnessed(t, srv, 1, f.witness(t))
	publish(t, srv, "sync", 3)
	integrate(t, srv)
	c.Round(ctx(t))
	_, names := servedCosignatures(t, srv, f.vkey)
	first, _ := srv.Store.LogHead(ctx(t))
	if len(names) != 1 {
		t.Fatal("no first cosignature")
	}
	// The witness moves on through another sender of the same log (a
	// replica whose state write was lost).
	publish(t, srv, "sync more", 2)
	integrate(t, srv)
	mid, _ := srv.Store.LogHead(ctx(t))
	f.mu.Lock()
	f.size, f.root = mid.Size, mid.Root
	f.mu.Unlock()
	publish(t, srv, "sync last", 2)
	integrate(t, srv)
	c.Round(ctx(t))
	cp, names := servedCosignatures(t, srv, f.vkey)
	if len(names) != 1 || cp.N != mid.Size+2 {
		t.Fatalf("after the 409: size %d cosigned by %v", cp.N, names)
	}
	if got, want := f.requests(), []int64{0, first.Size, mid.Size}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("requests' old sizes %v, want %v", got, want)
	}
}

// TestWitnessLargerSizeNeverGoesBackwards: a witness that says it holds a
// larger tree than the registry's newest is never sent a smaller
// checkpoint; the status says why.
func TestWitnessLargerSizeNeverGoesBackwards(t *testing.T) {
	srv := security.Start(t, security.Options{})
	f := newFakeWitness(t, "witness.test/future", srv.Log)
	f.size = 1000
	c := witnessed(t, srv, 1, f.witness(t))
	c.MinBackoff, c.MaxBackoff = time.Nanosecond, time.Nanosecond
	publish(t, srv, "behind", 2)
	integrate(t, srv)
	c.Round(ctx(t))
	c.Round(ctx(t))
	c.Round(ctx(t))
	if got := f.requests(); len(got) != 1 || got[0] != 0 {
		t.Fatalf("requests' old sizes %v, want one (the 409), then none", got)
	}
	_, _, ws, _ := c.Status(ctx(t))
	if ws[0].Size != 1000 || !strings.Contains(ws[0].LastError, "larger than its newest checkpoint") {
		t.Fatalf("status %+v", ws[0])
	}
	if _, names := servedCosignatures(t, srv, f.vkey); len(names) != 0 {
		t.Fatalf("cosigned by %v", names)
	}
}

// TestWitnessBadCosignaturesNotServed: an answer that is not a valid
// cosignature of this checkpoint by the configured key (another key, another
// checkpoint, a corrupted signature, garbage, too large) is a failure and is
// never served; a valid one among other lines is kept alone.
func TestWitnessBadCosignaturesNotServed(t *testing.T) {
	_, other, _ := ed25519.GenerateKey(rand.Reader)
	cases := map[string]func(t testing.TB, f *fakeWitness, cp []byte) string{
		"another key": func(t testing.TB, f *fakeWitness, cp []byte) string {
			s, _ := torchwood.NewCosignatureSigner(f.name, other)
			return cosignature(t, s, cp)
		},
		"another checkpoint": func(t testing.TB, f *fakeWitness, cp []byte) string {
			c, _ := agora.ParseLogCheckpoint(string(cp[:bytes.Index(cp, []byte("\n\n"))+1]))
			c.N++
			return cosignature(t, f.signer, []byte(c.Body()+"\n"))
		},
		"corrupted": func(t testing.TB, f *fakeWitness, cp []byte) string {
			line := []byte(cosignature(t, f.signer, cp))
			line[len(line)-3] ^= 'A' ^ 'B'
			return string(line)
		},
		"garbage": func(testing.TB, *fakeWitness, []byte) string { return "hello\n" },
		"no line": func(testing.TB, *fakeWitness, []byte) string { return "" },
		"too large": func(t testing.TB, f *fakeWitness, cp []byte) string {
			return cosignature(t, f.signer, cp) + strings.Repeat("x", 8<<10)
		},
	}
	for name, answer := range cases {
		t.Run(name, func(t *testing.T) {
			srv := security.Start(t, security.Options{})
			f := newFakeWitness(t, "witness.test/forger", srv.Log)
			f.answer = func(w http.ResponseWriter, _ int64, cp []byte) bool {
				io.WriteString(w, answer(t, f, cp))
				return true
			}
			c := witnessed(t, srv, 1, f.witness(t))
			publish(t, srv, "forged", 1)
			integrate(t, srv)
			c.Round(ctx(t))
			if _, names := servedCosignatures(t, srv, f.vkey); len(names) != 0 {
				t.Fatalf("served a %s cosignature", name)
			}
			states, _ := srv.Store.WitnessStates(ctx(t))
			_, _, ws, _ := c.Status(ctx(t))
			if len(states) != 0 || ws[0].Failures != 1 {
				t.Fatalf("a %s answer: stored %+v, status %+v", name, states, ws[0])
			}
			if name == "too large" && !strings.Contains(ws[0].LastError, "larger than") {
				t.Fatalf("a too large answer was read whole: %s", ws[0].LastError)
			}
		})
	}
	t.Run("valid among others", func(t *testing.T) {
		srv := security.Start(t, security.Options{})
		f := newFakeWitness(t, "witness.test/chatty", srv.Log)
		f.answer = func(w http.ResponseWriter, _ int64, cp []byte) bool {
			s, _ := torchwood.NewCosignatureSigner("witness.test/else", other)
			io.WriteString(w, cosignature(t, s, cp)+cosignature(t, f.signer, cp))
			return true
		}
		c := witnessed(t, srv, 1, f.witness(t))
		publish(t, srv, "chatty", 1)
		integrate(t, srv)
		c.Round(ctx(t))
		if _, names := servedCosignatures(t, srv, f.vkey); len(names) != 1 {
			t.Fatalf("cosigned by %v, want the configured witness only", names)
		}
	})
}

// TestWitnessStoredCosignatureVerifiedBeforeServing: a cosignature line in
// the store (written by anyone: a lying database, an old replica) is
// served only when it verifies over the served checkpoint with the
// configured key.
func TestWitnessStoredCosignatureVerifiedBeforeServing(t *testing.T) {
	srv := security.Start(t, security.Options{})
	f := newFakeWitness(t, "witness.test/stored", srv.Log)
	witnessed(t, srv, 1, f.witness(t))
	publish(t, srv, "stored", 2)
	integrate(t, srv)
	head, err := srv.Store.LogHead(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	_, other, _ := ed25519.GenerateKey(rand.Reader)
	forger, _ := torchwood.NewCosignatureSigner(f.name, other)
	for name, line := range map[string]string{
		"another key":         cosignature(t, forger, head.Checkpoint),
		"two lines":           cosignature(t, f.signer, head.Checkpoint) + cosignature(t, f.signer, head.Checkpoint),
		"not a signature":     "— witness.test/stored AAAA\n",
		"an injected line":    "\n— witness.test/stored AAAA",
		"a valid one, as set": cosignature(t, f.signer, head.Checkpoint),
	} {
		if err := srv.Store.SaveWitnessState(ctx(t), store.WitnessState{Key: f.vkey, Size: head.Size, CosignedSize: head.Size, Cosignature: line}); err != nil {
			t.Fatal(err)
		}
		_, names := servedCosignatures(t, srv, f.vkey)
		if want := name == "a valid one, as set"; (len(names) == 1) != want || len(names) > 1 {
			t.Fatalf("stored %s: served cosignatures %v", name, names)
		}
	}
	// A valid cosignature of an older checkpoint is not one of this one.
	old := cosignature(t, f.signer, head.Checkpoint)
	publish(t, srv, "stored later", 1)
	integrate(t, srv)
	if err := srv.Store.SaveWitnessState(ctx(t), store.WitnessState{Key: f.vkey, Size: head.Size + 1, CosignedSize: head.Size + 1, Cosignature: old}); err != nil {
		t.Fatal(err)
	}
	if _, names := servedCosignatures(t, srv, f.vkey); len(names) != 0 {
		t.Fatalf("an older checkpoint's cosignature was served: %v", names)
	}
}

// TestWitnessSlowIsBoundedAndNeverBlocksPublishing: a witness that never
// answers holds a round only for the request timeout, and publishing and
// the checkpoint carry on meanwhile.
func TestWitnessSlowIsBoundedAndNeverBlocksPublishing(t *testing.T) {
	srv := security.Start(t, security.Options{})
	f := newFakeWitness(t, "witness.test/slow", srv.Log)
	entered := make(chan struct{}, 8)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	f.answer = func(w http.ResponseWriter, _ int64, _ []byte) bool {
		entered <- struct{}{}
		<-release // answers only when the test ends
		return true
	}
	c := witnessed(t, srv, 1, f.witness(t))
	c.Timeout = 200 * time.Millisecond
	publish(t, srv, "slow", 1)
	integrate(t, srv)
	done := make(chan struct{})
	go func() { c.Round(ctx(t)); close(done) }()
	<-entered
	publish(t, srv, "while slow", 1)
	integrate(t, srv)
	if cp, names := servedCosignatures(t, srv, f.vkey); len(names) != 0 || cp.N < 2 {
		t.Fatalf("while the witness hangs: size %d, cosigned by %v", cp.N, names)
	}
	<-done // returns although the witness never answers
	_, _, ws, _ := c.Status(ctx(t))
	if ws[0].Failures != 1 || !strings.Contains(ws[0].LastError, "deadline") {
		t.Fatalf("status %+v", ws[0])
	}
}

// TestWitnessOneSenderAcrossReplicas: two registries on one PostgreSQL
// database never have requests in flight to a witness at once: a round
// starts only under the database's witness lock.
func TestWitnessOneSenderAcrossReplicas(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	a := security.Start(t, security.Options{Engine: "postgres", PostgresDSN: dsn})
	// The second replica: its own store (connections) and log, same key.
	st, err := postgres.Open(ctx(t), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	key, err := translog.LoadKey(ctx(t), st, "", a.Log.Origin())
	if err != nil {
		t.Fatal(err)
	}
	b := translog.New(st, key, nil)

	f := newFakeWitness(t, "witness.test/shared", a.Log)
	entered := make(chan struct{}, 8)
	release := make(chan struct{})
	f.answer = func(w http.ResponseWriter, _ int64, _ []byte) bool {
		entered <- struct{}{}
		<-release
		return false // then answer as the witness
	}
	ca := witnessed(t, a, 1, f.witness(t))
	cb, err := b.NewCosigner([]translog.Witness{f.witness(t)}, 1, &http.Client{})
	if err != nil {
		t.Fatal(err)
	}
	publish(t, a, "shared", 2)
	integrate(t, a)
	done := make(chan struct{})
	go func() { ca.Round(ctx(t)); close(done) }()
	<-entered
	cb.Round(ctx(t)) // the lock is held: b sends nothing
	close(release)
	<-done
	f.mu.Lock()
	most := f.maxInFlight
	f.mu.Unlock()
	if most != 1 || len(f.requests()) != 1 {
		t.Fatalf("%d requests, at most %d in flight; want one sender", len(f.requests()), most)
	}
	// The other replica serves the cosignature a got.
	cp, err := b.Checkpoint(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	v, _, _ := agora.ParseWitnessKey(f.vkey)
	if n, err := note.Open(cp, note.VerifierList(v)); err != nil || len(n.Sigs) != 1 {
		t.Fatalf("the other replica's checkpoint is not cosigned: %v\n%s", err, cp)
	}
}

// TestParseWitness: --witness is VKEY@URL with a cosignature key (0x04).
func TestParseWitness(t *testing.T) {
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	s, _ := torchwood.NewCosignatureSigner("witness.test/w", priv)
	vkey := s.Verifier().String()
	_, plain, _ := note.GenerateKey(rand.Reader, "witness.test/w")
	name, rest, _ := strings.Cut(vkey, "+")
	_, key, _ := strings.Cut(rest, "+")
	for _, bad := range []string{
		vkey, "@http://w.test", vkey + "@ftp://w.test", vkey + "@http://", vkey + "@http://w.test/?q=1",
		plain + "@http://w.test",                     // an Ed25519 note key, not a cosignature key
		name + "+00000000+" + key + "@http://w.test", // a wrong key hash
	} {
		if _, err := translog.ParseWitness(bad); err == nil {
			t.Errorf("ParseWitness(%q) accepted", bad)
		}
	}
	w, err := translog.ParseWitness(vkey + "@https://w.test/prefix/")
	if err != nil || w.URL != "https://w.test/prefix" || w.Name() != "witness.test/w" {
		t.Fatalf("ParseWitness = %+v, %v", w, err)
	}
}
