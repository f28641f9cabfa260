package directorybench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/directory"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/sqlite"
	"github.com/agora-registry/registry/internal/store/storetest"
)

const crawlAgents = 1000

func openStore(b *testing.B) *sqlite.Store {
	b.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "r.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	return st
}

// BenchmarkCrawl1000Agents re-crawls 1,000 registered agents (one loopback
// server answering each /.well-known/agora with 20 hashes) per iteration,
// at the default concurrency and at 16; it reports agents/s.
func BenchmarkCrawl1000Agents(b *testing.B) {
	list := map[string]any{"name": "bench", "supported": map[string][]string{}}
	for i := range 20 {
		list["supported"].(map[string][]string)[fmt.Sprintf("%040x", i)] = []string{"https://example.org/p.md"}
	}
	body, _ := json.Marshal(list)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(body) }))
	defer srv.Close()
	for _, conc := range []int{directory.DefaultConcurrency, 16} {
		b.Run("concurrency="+strconv.Itoa(conc), func(b *testing.B) {
			st := openStore(b)
			var (
				mu  sync.Mutex
				now = time.Now()
			)
			clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
			d, err := directory.New(st, directory.Config{Allow: []string{"127.0.0.1/32"}, Concurrency: conc, Now: clock,
				Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			for i := range crawlAgents {
				if _, _, err := st.RegisterAgent(ctx, srv.URL+"/a"+strconv.Itoa(i), now, entity.AgentCrawl{}, now); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				mu.Lock()
				now = now.Add(3 * time.Hour) // everything is due again
				mu.Unlock()
				total := 0
				for {
					n, err := d.CrawlDue(ctx)
					if err != nil {
						b.Fatal(err)
					}
					if n == 0 {
						break
					}
					total += n
				}
				if total != crawlAgents {
					b.Fatalf("crawled %d agents, want %d", total, crawlAgents)
				}
			}
			b.ReportMetric(float64(crawlAgents*b.N)/time.Since(start).Seconds(), "agents/s")
		})
	}
}

// BenchmarkMatch is one POST /api/v1/match's work (the service call) over
// the shared benchmark corpus (BENCH_MATCH_DOCS documents, default 10,000).
func BenchmarkMatch(b *testing.B) {
	n := 10000
	if v, err := strconv.Atoi(os.Getenv("BENCH_MATCH_DOCS")); err == nil && v > 0 {
		n = v
	}
	st := openStore(b)
	ctx := context.Background()
	for start := 0; start < n; start += 1000 {
		docs := make([]store.NewDocument, 0, 1000)
		for i := start; i < min(n, start+1000); i++ {
			d, err := protocol.Prepare(storetest.GenerateDocument(i), 0)
			if err != nil {
				b.Fatal(err)
			}
			docs = append(docs, store.NewDocument{Document: d})
		}
		if _, err := st.PutMany(ctx, docs); err != nil {
			b.Fatal(err)
		}
	}
	svc := registry.New(st, registry.Config{PublicURL: "http://bench", CacheBytes: 16 << 20})
	req := registry.MatchRequest{Task: "query weather forecasts for a location and return the status",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"location":{"type":"string"},"date":{"type":"string"}}}`), Limit: 5}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		ms, err := svc.Match(ctx, req)
		if err != nil || len(ms) == 0 {
			b.Fatalf("match: %d, %v", len(ms), err)
		}
	}
	b.StopTimer()
	ms, _ := svc.Match(ctx, req)
	var top []string
	for _, m := range ms {
		top = append(top, fmt.Sprintf("%s=%g", m.Entry.Metadata.Title, m.Score))
	}
	b.Logf("documents %d; top: %s", n, strings.Join(top, "; "))
}
