package demobench

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	storebench "github.com/agora-registry/registry/bench/store"
	"github.com/agora-registry/registry/internal/store/postgres"
	"github.com/agora-registry/registry/internal/testing/security"
)

// BenchmarkDemoList measures the demo's GET / on each engine: one answer
// listing every document of a store of listedDocs, read by a client that
// discards it. It reports CPU per 100 listed items: this process's (the
// registry and the discarding client) and, on PostgreSQL, the database
// backends'. Docs: docs/benchmarks/demo-list.md.
//
//	cd bench && go test -run '^$' -bench DemoList -benchtime 200x ./demo/
func BenchmarkDemoList(b *testing.B) {
	const listedDocs = 1000
	for _, engine := range security.Engines {
		b.Run(engine, func(b *testing.B) {
			s := security.Start(b, security.Options{Engine: engine})
			storebench.Seed(b, s.Store, listedDocs)
			var pids []int
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
			var body bytes.Buffer
			get := func() int {
				res, err := client.Get(s.URL + "/")
				if err != nil {
					b.Fatal(err)
				}
				body.Reset()
				_, err = body.ReadFrom(res.Body)
				res.Body.Close()
				if err != nil || res.StatusCode != 200 {
					b.Fatalf("GET /: %d, %v", res.StatusCode, err)
				}
				return bytes.Count(body.Bytes(), []byte(`{"id":`))
			}
			if n := get(); n != listedDocs { // also warms connections, statements, caches
				b.Logf("GET / lists %d of %d documents", n, listedDocs)
			}
			if pg, ok := s.Store.(*postgres.Store); ok {
				pids = clientBackends(b, pg)
			}
			b.ResetTimer()
			cpu0, db0 := storebench.ProcessCPU(), backendCPU(pids)
			listed := 0
			for range b.N {
				listed += get()
			}
			b.StopTimer()
			items := float64(listed)
			b.ReportMetric(float64((storebench.ProcessCPU()-cpu0).Microseconds())/items*100, "proc-µs/100items")
			b.ReportMetric(float64((backendCPU(pids)-db0).Microseconds())/items*100, "db-µs/100items")
		})
	}
}

// clientBackends are the server processes of the database's client
// connections (not autovacuum's, which may run meanwhile).
func clientBackends(b *testing.B, pg *postgres.Store) []int {
	b.Helper()
	rows, err := pg.Pool().Query(context.Background(),
		"SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend'")
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	var pids []int
	for rows.Next() {
		var pid int
		if err := rows.Scan(&pid); err != nil {
			b.Fatal(err)
		}
		pids = append(pids, pid)
	}
	return pids
}

// backendCPU sums the CPU time of server processes, read from /proc (the
// benchmark and the database share the machine).
func backendCPU(pids []int) time.Duration {
	var sum time.Duration
	for _, pid := range pids {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			continue // ended meanwhile
		}
		// Fields after the command's closing parenthesis: utime is the
		// 12th, stime the 13th, in clock ticks (100 per second on Linux).
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		ut, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		sum += time.Duration(ut+st) * 10 * time.Millisecond
	}
	return sum
}
