package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store/postgres"
	"github.com/agora-registry/registry/internal/testing/pgtest"
	"github.com/agora-registry/registry/internal/testing/security"
	"github.com/agora-registry/registry/internal/translog"
)

// `registry verify` against a real registry that lies: through a hostile
// proxy, and over a database written behind the registry's back. The
// exit status is the contract: 0 all checked, 1 proven inconsistent, 2
// could not check.

func vctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return c
}

// runVerify runs `registry verify` and returns its output and exit status.
func runVerify(t *testing.T, base, state string, args ...string) (string, int) {
	t.Helper()
	out, errOut, err := runCLI(t, nil, nil, append([]string{"verify", "--registry", base, "--state", state, "--settle", "10ms"}, args...)...)
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out + errOut, code
}

func wantVerify(t *testing.T, base, state string, code int, contains string, args ...string) string {
	t.Helper()
	out, got := runVerify(t, base, state, args...)
	if got != code || !strings.Contains(out, contains) {
		t.Fatalf("registry verify %v: exit %d, want %d with %q:\n%s", args, got, code, contains, out)
	}
	return out
}

func publishN(t *testing.T, srv *security.Server, prefix string, n int) []protocol.Digest {
	t.Helper()
	var ds []protocol.Digest
	for i := range n {
		r, err := srv.Svc.Publish(vctx(t), fmt.Appendf(nil, "# %s %d\n\nBody %d.\n", prefix, i, i), nil, "")
		if err != nil {
			t.Fatal(err)
		}
		ds = append(ds, r.Entry.Digest)
	}
	if err := srv.Log.Integrate(vctx(t)); err != nil {
		t.Fatal(err)
	}
	return ds
}

func hexes(ds ...protocol.Digest) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Hex()
	}
	return out
}

// faultyProxy forwards to base, answering 503 where fail says.
func faultyProxy(t *testing.T, base string, fail func(r *http.Request) bool) string {
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	p := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if fail(r) {
			http.Error(w, "Service Unavailable", http.StatusServiceUnavailable)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(p.Close)
	return p.URL
}

// TestVerifyTransientFailureIsNotAFork: a 503 is retried; one that lasts
// is exit 2 ("could not check"), never a fork; the registry answering
// again passes with the state kept.
func TestVerifyTransientFailureIsNotAFork(t *testing.T) {
	srv := security.Start(t, security.Options{})
	ds := publishN(t, srv, "Transient", 5)
	state := filepath.Join(t.TempDir(), "verify.json")
	wantVerify(t, srv.URL, state, 0, ds[0].Hex()+" ok record 0 active", hexes(ds...)...)
	publishN(t, srv, "More", 3)

	var mu sync.Mutex
	seen := map[string]bool{}
	once := faultyProxy(t, srv.URL, func(r *http.Request) bool { // each path fails once
		mu.Lock()
		defer mu.Unlock()
		first := !seen[r.URL.String()]
		seen[r.URL.String()] = true
		return first
	})
	wantVerify(t, once, state, 0, "consistent with size 5 seen before", hexes(ds...)...)

	publishN(t, srv, "Even more", 2)
	down := faultyProxy(t, srv.URL, func(r *http.Request) bool { return strings.HasPrefix(r.URL.Path, "/log/tile/") })
	out := wantVerify(t, down, state, 2, "503", "--retries", "2", ds[0].Hex())
	if strings.Contains(out, "FORK") || strings.Contains(out, "MISMATCH") {
		t.Fatalf("a registry answering 503 was called inconsistent:\n%s", out)
	}
	wantVerify(t, srv.URL, state, 0, "consistent with size 8 seen before", ds[0].Hex())

	// Nor is a verifier's own trouble (another key than the one pinned).
	other, err := translog.GenerateKey("other.example")
	if err != nil {
		t.Fatal(err)
	}
	k, err := translog.ParseKey(other)
	if err != nil {
		t.Fatal(err)
	}
	wantVerify(t, srv.URL, state, 2, "is not the key pinned", "--key", k.VerifierKey)
}

// TestVerifyForkPrintsEvidence: two histories signed with one key; the
// second run prints both signed checkpoints and exits 1.
func TestVerifyForkPrintsEvidence(t *testing.T) {
	skey, err := translog.GenerateKey("fork.example/log")
	if err != nil {
		t.Fatal(err)
	}
	a := security.Start(t, security.Options{LogKey: skey})
	b := security.Start(t, security.Options{LogKey: skey})
	publishN(t, a, "Honest", 3)
	publishN(t, b, "Forked", 4)
	state := filepath.Join(t.TempDir(), "verify.json")
	wantVerify(t, a.URL, state, 0, "size 3")
	out := wantVerify(t, b.URL, state, 1, "LOG FORK DETECTED")
	if strings.Count(out, "— fork.example/log ") != 2 || !strings.Contains(out, "does not extend") {
		t.Fatalf("the fork's evidence (both signed notes, the failing proof) is not printed:\n%s", out)
	}
}

// TestVerifyLyingDatabase: what a database writer changes behind the
// registry's back is found, by hash and in cron mode (--all, --sample).
// A fresh replica on the same database serves the rows as they now are.
func TestVerifyLyingDatabase(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	srv := security.Start(t, security.Options{Engine: "postgres", PostgresDSN: dsn})
	pool := srv.Store.(*postgres.Store).Pool()
	ds := publishN(t, srv, "Lied about", 6)
	if err := srv.Svc.Withdraw(vctx(t), entity.Token{ID: 1, Name: "ops"}, ds[1], "legal"); err != nil {
		t.Fatal(err)
	}
	// A publish whose queued event the writer changes before the log
	// takes it (holding the log's lock): the record names other bytes.
	tx, err := pool.Begin(vctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(vctx(t), `SELECT pg_advisory_xact_lock($1)`, int64(0x61676f72614c4f47)); err != nil {
		t.Fatal(err)
	}
	lied, err := srv.Svc.Publish(vctx(t), []byte("# Logged wrong\n\nBody.\n"), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(vctx(t), `UPDATE log_pending SET sha256 = sha256('other'::bytea) WHERE digest = $1`, lied.Entry.Digest[:]); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(vctx(t)); err != nil {
		t.Fatal(err)
	}
	if err := srv.Log.Integrate(vctx(t)); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(t.TempDir(), "verify.json")
	wantVerify(t, srv.URL, state, 0, "ok", hexes(ds...)...)

	for _, w := range []struct {
		q string
		d protocol.Digest
	}{
		{`UPDATE documents SET content = overlay(content placing 'X'::bytea from 3 for 1) WHERE digest = $1`, ds[0]}, // same length
		{`UPDATE documents SET withdrawn_at = NULL WHERE digest = $1`, ds[1]},                                        // un-withdrawn
		{`UPDATE documents SET publisher = 'anonymous' WHERE digest = $1`, ds[2]},                                    // another publisher
	} {
		if tag, err := pool.Exec(vctx(t), w.q, w.d[:]); err != nil || tag.RowsAffected() != 1 {
			t.Fatalf("%s: %v", w.q, err)
		}
	}
	replica := startServer(t, "--database-url", dsn, "--data-dir", t.TempDir(), "--no-examples")
	for _, c := range []struct {
		d    protocol.Digest
		want string
	}{
		{ds[0], "damaged (corrupt_document)"}, // the registry refuses its own damaged copy
		{ds[1], "records withdrawn"},
		{ds[2], "its log attests"},
		{lied.Entry.Digest, "its log records"},
	} {
		wantVerify(t, replica.URL, state, 1, c.d.Hex()+" MISMATCH "+"", c.d.Hex())
		wantVerify(t, replica.URL, state, 1, c.want, c.d.Hex())
	}
	wantVerify(t, replica.URL, state, 0, ds[3].Hex()+" ok", ds[3].Hex())
	out := wantVerify(t, replica.URL, state, 1, "MISMATCH", "--all")
	if strings.Count(out, " MISMATCH ") != 4 {
		t.Fatalf("--all found %d of the 4 lies:\n%s", strings.Count(out, " MISMATCH "), out)
	}
	wantVerify(t, replica.URL, state, 1, "MISMATCH", "--sample", "100")
}
