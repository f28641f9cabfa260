package matchbench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/bench/harness"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/migrate"
	"github.com/agora-registry/registry/internal/store/postgres"
	"github.com/agora-registry/registry/internal/store/sqlite"
)

// Config is one run of the benchmark.
type Config struct {
	N       int      // documents of the padded corpus
	Engines []string // sqlite, postgres
	Write   string   // JSON file of the rows, "" to skip
	Misses  bool     // print the tasks answered wrong
	Getenv  func(string) string
	Out     io.Writer
}

// Model names the chat model of the re-rank row: BENCH_MATCH_LLM_URL (an
// OpenAI-compatible base URL), BENCH_MATCH_LLM_MODEL and
// BENCH_MATCH_LLM_API_KEY. Without the URL the row is skipped.
func model(getenv func(string) string) agora.Completer {
	if getenv("BENCH_MATCH_LLM_URL") == "" {
		return nil
	}
	return &agora.LLM{BaseURL: getenv("BENCH_MATCH_LLM_URL"), Model: getenv("BENCH_MATCH_LLM_MODEL"),
		APIKey: getenv("BENCH_MATCH_LLM_API_KEY"), Timeout: 30 * time.Second}
}

// Main measures every row and prints (and writes) them.
func Main(ctx context.Context, c Config) error {
	ps, err := Load()
	if err != nil {
		return err
	}
	var rows []Row
	for _, engine := range c.Engines {
		for _, noQueries := range []bool{false, true} {
			docs, tasks := Corpus(ps, Options{NoQueries: noQueries})
			st, closeStore, err := open(ctx, engine, c.Getenv)
			if err != nil {
				return err
			}
			keys, err := Publish(ctx, st, docs)
			if err != nil {
				closeStore()
				return err
			}
			sizes := []int{len(docs)}
			if c.N > len(docs) && !noQueries { // the figure without queries is on the corpus alone
				sizes = append(sizes, c.N)
			}
			for _, n := range sizes {
				if n > len(docs) {
					start := time.Now()
					if err := Pad(ctx, st, n-len(docs)); err != nil {
						closeStore()
						return err
					}
					fmt.Fprintf(c.Out, "%s: padded to %d documents in %s\n", engine, n, time.Since(start).Round(time.Second))
				}
				llms := []agora.Completer{nil}
				if m := model(c.Getenv); m != nil && !noQueries {
					llms = append(llms, m)
				}
				for _, m := range llms {
					svc := registry.New(st, registry.Config{PublicURL: "http://bench", CacheBytes: 64 << 20,
						MatchLLM: registry.MatchLLM{Model: m, PerMinute: 1 << 20, ClientPerMinute: 1 << 20}})
					row := Row{Engine: engine, Documents: n, Ranking: registry.RankedDeterministic, Queries: !noQueries}
					if m != nil {
						row.Ranking = registry.RankedByLLM
					}
					var miss func(Task, []string, int)
					if c.Misses {
						miss = func(t Task, got []string, at int) {
							fmt.Fprintf(c.Out, "  miss (held-out %v) %q want %v got %v, right at %d\n", t.HeldOut, t.Text, t.Right, got, at)
						}
					}
					if row.Dev, row.HeldOut, err = Run(ctx, svc.MatchRanked, keys, tasks, miss); err != nil {
						closeStore()
						return err
					}
					rows = append(rows, row)
					fmt.Fprintf(c.Out, "%s\n", rowLine(row))
				}
			}
			closeStore()
		}
	}
	if c.Write == "" {
		return nil
	}
	b, err := json.MarshalIndent(rows, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(c.Write, append(b, '\n'), 0o644)
}

func rowLine(r Row) string {
	return fmt.Sprintf("%s n=%d %s queries=%v  dev top1=%.3f top3=%.3f reach=%.3f p50=%.1fms p95=%.1fms cpu p95=%.1fms  held-out top1=%.3f top3=%.3f reach=%.3f p95=%.1fms cpu p95=%.1fms",
		r.Engine, r.Documents, r.Ranking, r.Queries, r.Dev.Top1, r.Dev.Top3, r.Dev.Reach, r.Dev.P50Millis, r.Dev.P95Millis, r.Dev.CPUP95Millis,
		r.HeldOut.Top1, r.HeldOut.Top3, r.HeldOut.Reach, r.HeldOut.P95Millis, r.HeldOut.CPUP95Millis)
}

func open(ctx context.Context, engine string, getenv func(string) string) (store.Store, func(), error) {
	switch engine {
	case "sqlite":
		dir, err := os.MkdirTemp("", "matchbench")
		if err != nil {
			return nil, nil, err
		}
		st, err := sqlite.Open(ctx, filepath.Join(dir, "r.db"))
		if err != nil {
			return nil, nil, err
		}
		return st, func() { st.Close(); os.RemoveAll(dir) }, nil
	case "postgres":
		admin := getenv("REGISTRY_TEST_POSTGRES_DSN")
		if admin == "" {
			return nil, nil, fmt.Errorf("postgres needs REGISTRY_TEST_POSTGRES_DSN")
		}
		dsn, drop, err := harness.CreateDatabase(ctx, admin, "matchbench")
		if err != nil {
			return nil, nil, err
		}
		if err := migrate.Up(ctx, migrate.Postgres, dsn); err != nil {
			drop()
			return nil, nil, err
		}
		st, err := postgres.Open(ctx, dsn)
		if err != nil {
			drop()
			return nil, nil, err
		}
		return st, func() { st.Close(); drop() }, nil
	}
	return nil, nil, fmt.Errorf("unknown engine %q (sqlite, postgres)", strings.TrimSpace(engine))
}
