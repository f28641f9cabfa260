package postgres

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store/pgtest"
	"github.com/agora-registry/registry/internal/store/storetest"
)

// TestReadProfile measures a cold raw fetch (Content of a random digest):
// the server CPU of one fetch for each way of storing content, then the
// store's Content from 32 goroutines beside `pgbench -S -M prepared -c 32
// -j 2` on the same server, alternating, so both see the same machine.
func TestReadProfile(t *testing.T) {
	profileEnabled(t, "read")
	ctx := context.Background()
	n := profileInt("REGISTRY_PG_PROFILE_DOCS", 20000)
	seconds := profileInt("REGISTRY_PG_PROFILE_SECONDS", 10)
	rounds := profileInt("REGISTRY_PG_PROFILE_ROUNDS", 2)
	dsn := pgtest.NewDatabase(t)
	s, err := Open(ctx, dsn, WithMaxConns(32))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	digests := storetest.Seed(t, s, n)
	t.Logf("seeded %d documents", n)

	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	pid := backendPID(t, conn)
	// Content tables: the documents table's way (out of line after 128
	// bytes) with each compression, and content kept in the row.
	variants := []struct{ name, create, sql string }{
		{"select 1 (round trip)", "", `SELECT $1::bytea IS NULL`},
		{"documents, no content (withdrawn_at only)", "", `SELECT withdrawn_at IS NOT NULL FROM documents WHERE digest = $1`},
		{"documents (content as the store keeps it)", "", `SELECT content, withdrawn_at IS NOT NULL FROM documents WHERE digest = $1`},
		{"out of line, pglz", `WITH (toast_tuple_target = 128)`, ""},
		{"out of line, lz4", `WITH (toast_tuple_target = 128); ALTER TABLE %[1]s ALTER content SET COMPRESSION lz4`, ""},
		{"out of line, uncompressed", `WITH (toast_tuple_target = 128); ALTER TABLE %[1]s ALTER content SET STORAGE EXTERNAL`, ""},
		{"in the row up to 8 kB, uncompressed", `WITH (toast_tuple_target = 8160); ALTER TABLE %[1]s ALTER content SET STORAGE MAIN`, ""},
		{"in the row, lz4 (compressed past 2 kB)", `; ALTER TABLE %[1]s ALTER content SET COMPRESSION lz4`, ""},
	}
	if os.Getenv("REGISTRY_PG_PROFILE_SET") == "store" { // the store's own table only
		variants = variants[:3]
	}
	for i := range variants {
		v := &variants[i]
		if v.create == "" {
			continue
		}
		table := fmt.Sprintf("content_%d", i)
		mustExec(t, conn, fmt.Sprintf(`CREATE TABLE %[1]s (digest bytea PRIMARY KEY, withdrawn_at timestamptz, content bytea NOT NULL) `+v.create, table))
		mustExec(t, conn, `INSERT INTO `+table+` SELECT digest, withdrawn_at, content || ''::bytea FROM documents`)
		mustExec(t, conn, `VACUUM ANALYZE `+table)
		v.sql = `SELECT content, withdrawn_at IS NOT NULL FROM ` + table + ` WHERE digest = $1`
		var size int64
		if err := conn.QueryRow(ctx, "SELECT pg_total_relation_size($1::regclass)", table).Scan(&size); err != nil {
			t.Fatal(err)
		}
		t.Logf("table %q: %.0f MB", v.name, float64(size)/1e6)
	}
	perFetch := make([][]float64, len(variants))
	for range rounds {
		for i, v := range variants {
			var content []byte
			var withdrawn bool
			dest := []any{&content, &withdrawn}
			if !strings.Contains(v.sql, "content,") {
				dest = []any{&withdrawn}
			}
			fetch := func(d protocol.Digest) {
				if err := conn.QueryRow(ctx, v.sql, d[:]).Scan(dest...); err != nil {
					t.Fatal(err)
				}
			}
			sample := make([]protocol.Digest, min(len(digests), 20000))
			for j := range sample {
				sample[j] = digests[rand.IntN(len(digests))]
			}
			for _, d := range sample[:len(sample)/4] { // warm up
				fetch(d)
			}
			cpu := serverCPU(t, pid, func() {
				for _, d := range sample {
					fetch(d)
				}
			})
			perFetch[i] = append(perFetch[i], float64(cpu.Nanoseconds())/1000/float64(len(sample)))
		}
	}
	for i, v := range variants {
		t.Logf("%s: %.1f µs server CPU per fetch (median of %d rounds of 20,000 random digests, one connection): %.1f", v.name, median(perFetch[i]), rounds, perFetch[i])
	}

	pgbenchDSN := pgbenchDatabase(t)
	pgbenchPerFetch(t, pgbenchDSN, 20000)
	parallel := [][2]string{{"store Content (documents table)", ""}}
	for _, v := range variants[3:] {
		parallel = append(parallel, [2]string{v.name, v.sql})
	}
	results := map[string][]float64{}
	for round := range rounds {
		tps := pgbenchSelect(t, pgbenchDSN, seconds)
		results["pgbench"] = append(results["pgbench"], tps)
		for _, p := range parallel {
			ops, backendCPU := parallelFetch(t, s, p[1], digests, 32, time.Duration(seconds)*time.Second)
			results[p[0]] = append(results[p[0]], ops)
			t.Logf("round %d: %s at 32 goroutines %.0f/s (%.1f µs server CPU each); pgbench -S -M prepared -c 32 -j 2 -T %d before it: %.0f tps; ratio %.2f",
				round, p[0], ops, backendCPU, seconds, tps, ops/tps)
		}
	}
	pg := median(results["pgbench"])
	for _, p := range parallel {
		t.Logf("%s: median %.0f/s at 32 goroutines = %.2f × pgbench -S (median %.0f tps)", p[0], median(results[p[0]]), median(results[p[0]])/pg, pg)
	}
}

// parallelFetch calls Content (or, with sql, runs sql) on random digests
// from g goroutines for d and returns calls per second and the server CPU
// per call.
func parallelFetch(t *testing.T, s *Store, sql string, digests []protocol.Digest, g int, d time.Duration) (float64, float64) {
	t.Helper()
	ctx := context.Background()
	pids := poolBackends(t, s)
	cpu0 := sumCPU(t, pids)
	var calls atomic.Int64
	var wg sync.WaitGroup
	stop := time.Now().Add(d)
	t0 := time.Now()
	for w := range g {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 1))
			for time.Now().Before(stop) {
				d := digests[r.IntN(len(digests))]
				var err error
				if sql == "" {
					_, err = s.Content(ctx, d)
				} else {
					var content []byte
					var withdrawn bool
					err = s.pool.QueryRow(ctx, sql, d[:]).Scan(&content, &withdrawn)
				}
				if err != nil {
					t.Error(err)
					return
				}
				calls.Add(1)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(t0)
	after := poolBackends(t, s)
	if len(after) != len(pids) {
		t.Logf("the pool opened connections during the run (%d → %d): server CPU per call is over the first %d only", len(pids), len(after), len(pids))
	}
	cpu := sumCPU(t, pids) - cpu0
	return float64(calls.Load()) / elapsed.Seconds(), float64(cpu.Nanoseconds()) / 1000 / float64(calls.Load())
}

// poolBackends opens every connection of the pool and returns their
// server processes.
func poolBackends(t *testing.T, s *Store) []int {
	t.Helper()
	ctx := context.Background()
	var conns []*pgxpool.Conn
	for range s.pool.Config().MaxConns {
		c, err := s.pool.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	var pids []int
	for _, c := range conns {
		pids = append(pids, int(c.Conn().PgConn().PID()))
		c.Release()
	}
	return pids
}

func sumCPU(t *testing.T, pids []int) time.Duration {
	var sum time.Duration
	for _, p := range pids {
		sum += processCPU(t, p)
	}
	return sum
}

// pgbenchDatabase creates a database initialised by pgbench at scale 10,
// as the HTTP benchmark's baseline does.
func pgbenchDatabase(t *testing.T) string {
	t.Helper()
	dsn := pgtest.NewDatabase(t)
	out, err := exec.Command("pgbench", "-i", "-s", "10", "-q", dsn).CombinedOutput()
	if err != nil {
		t.Fatalf("pgbench -i: %v\n%s", err, out)
	}
	return dsn
}

var tpsLine = regexp.MustCompile(`tps = ([0-9.]+) \(without initial connection time\)`)

func pgbenchSelect(t *testing.T, dsn string, seconds int) float64 {
	t.Helper()
	cmd := exec.Command("pgbench", "-S", "-M", "prepared", "-c", "32", "-j", "2", "-T", strconv.Itoa(seconds), "-n", dsn)
	cmd.Env = os.Environ()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("pgbench -S: %v\n%s", err, out)
	}
	m := tpsLine.FindSubmatch(out)
	if m == nil {
		t.Fatalf("no tps in pgbench's output:\n%s", out)
	}
	tps, _ := strconv.ParseFloat(string(m[1]), 64)
	return tps
}

// pgbenchPerFetch measures pgbench -S's statement by the same method as the
// content variants: one connection, n lookups of random keys.
func pgbenchPerFetch(t *testing.T, dsn string, n int) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	pid := backendPID(t, conn)
	var balance int
	fetch := func() {
		if err := conn.QueryRow(ctx, `SELECT abalance FROM pgbench_accounts WHERE aid = $1`, 1+rand.IntN(1_000_000)).Scan(&balance); err != nil {
			t.Fatal(err)
		}
	}
	for range n / 4 {
		fetch()
	}
	cpu := serverCPU(t, pid, func() {
		for range n {
			fetch()
		}
	})
	t.Logf("pgbench -S's SELECT (scale 10): %.1f µs server CPU per fetch (%d fetches, one connection)", float64(cpu.Nanoseconds())/1000/float64(n), n)
}
