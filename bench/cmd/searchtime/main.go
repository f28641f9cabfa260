// Command searchtime times store Search calls of a few corpus queries on
// an existing store, PostgreSQL (seedpg, or -seed) or SQLite (-sqlite, and
// -seed to fill a new one), for before/after comparisons of the search
// code (docs/benchmarks/postgres-search.md). Each line is one query shape:
// its median and 95th percentile wall time and its median process CPU (the
// Go side and, on SQLite, the engine; PostgreSQL's own CPU is not counted).
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agora-registry/registry/internal/protocol"
	regstore "github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/postgres"
	"github.com/agora-registry/registry/internal/store/sqlite"
	"github.com/agora-registry/registry/internal/store/storetest"
)

func main() {
	dsn := flag.String("database-url", "", "PostgreSQL URL of an existing store")
	path := flag.String("sqlite", "", "SQLite database file (instead of -database-url)")
	seed := flag.Int("seed", 0, "first store corpus documents [0, seed) in batches of 1000 (a new store)")
	n := flag.Int("n", 20, "calls per query shape")
	deep := flag.Int("deep", 10, "the deep shape's page (of 20 rows, by cursors)")
	only := flag.String("only", "", "time only the shapes named (comma-separated)")
	flag.Parse()
	ctx := context.Background()
	var s regstore.Store
	var err error
	if *path != "" {
		s, err = sqlite.Open(ctx, *path)
	} else {
		s, err = postgres.Open(ctx, *dsn)
	}
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	for i := 0; i < *seed; i += 1000 {
		batch := make([]regstore.NewDocument, 0, 1000)
		for j := i; j < min(i+1000, *seed); j++ {
			doc, err := protocol.Prepare(storetest.GenerateDocument(j), 0)
			if err != nil {
				log.Fatal(err)
			}
			batch = append(batch, regstore.NewDocument{Document: doc})
		}
		if _, err := s.PutMany(ctx, batch); err != nil {
			log.Fatal(err)
		}
	}
	type shape struct {
		name string
		q    regstore.Query
		page int // the page timed, reached by cursors
	}
	for _, c := range []shape{
		{"common", regstore.Query{Text: storetest.CommonWord}, 1},
		{"rare", regstore.Query{Text: storetest.RareWord}, 1},
		{"head", regstore.Query{Text: storetest.CommonTag}, 1},
		{"two-words", regstore.Query{Text: storetest.CommonWord + " booking"}, 1},
		{"word+tag", regstore.Query{Text: storetest.CommonWord, Tags: []string{storetest.CommonTag}}, 1},
		{"deep-common", regstore.Query{Text: storetest.CommonWord}, *deep},
		{"deep-head", regstore.Query{Text: storetest.CommonTag}, *deep},
		{"tag-list", regstore.Query{Tags: []string{storetest.CommonTag}}, 1},
		{"deep-list", regstore.Query{Limit: 100}, *deep},
	} {
		if *only != "" && !slices.Contains(strings.Split(*only, ","), c.name) {
			continue
		}
		q := c.q
		for p := 1; p < c.page; p++ {
			page, err := s.Search(ctx, q)
			if err != nil {
				log.Fatal(err)
			}
			q.Cursor = page.NextCursor
		}
		var lat, cpu []time.Duration
		var got int
		db0 := backendCPU(ctx, *dsn)
		for i := 0; i < *n; i++ {
			t0, c0 := time.Now(), processCPU()
			p, err := s.Search(ctx, q)
			if err != nil {
				log.Fatal(err)
			}
			lat, cpu = append(lat, time.Since(t0)), append(cpu, processCPU()-c0)
			got = len(p.Entries)
		}
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		sort.Slice(cpu, func(i, j int) bool { return cpu[i] < cpu[j] })
		db := ""
		if *dsn != "" {
			db = fmt.Sprintf(" postgres-cpu/op=%v", ((backendCPU(ctx, *dsn) - db0) / time.Duration(*n)).Round(10*time.Microsecond))
		}
		fmt.Printf("%-12s page=%-3d entries=%-3d median=%-9v p95=%-9v cpu=%v%s\n", c.name, c.page, got,
			lat[len(lat)/2].Round(10*time.Microsecond), lat[len(lat)*95/100].Round(10*time.Microsecond), cpu[len(cpu)/2].Round(10*time.Microsecond), db)
	}
}

// processCPU is the CPU time this process has used (user + system).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// backendCPU is the CPU time the PostgreSQL backends of dsn's database have
// used, from /proc (the server on this machine; clock ticks of 10 ms, so
// it is read around many calls), or 0 without a DSN.
func backendCPU(ctx context.Context, dsn string) time.Duration {
	if dsn == "" {
		return 0
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)
	if err != nil {
		log.Fatal(err)
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		log.Fatal(err)
	}
	var total time.Duration
	for _, pid := range pids {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		// The fields after the command's closing parenthesis: utime and
		// stime are the 12th and 13th.
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		ut, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		total += time.Duration(ut+st) * 10 * time.Millisecond
	}
	return total
}
