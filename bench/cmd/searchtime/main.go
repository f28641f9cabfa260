// Command searchtime times store Search calls of a few corpus queries on
// an existing PostgreSQL store (seedpg), for before/after comparisons of
// the search code (docs/benchmarks/postgres-search.md).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"sort"
	"time"

	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/postgres"
)

func main() {
	dsn := flag.String("database-url", "", "")
	n := flag.Int("n", 20, "")
	flag.Parse()
	ctx := context.Background()
	s, err := postgres.Open(ctx, *dsn)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	for _, q := range []store.Query{
		{Text: "xylophone"}, {Text: "payload"}, {Text: "weather"}, {Text: "xylophone payload"},
		{Text: "xylophone", Sort: store.SortNewest}, {Text: "payload", Sort: store.SortNewest},
		{Text: "xylophone", Sort: store.SortName}, {Text: "payload", Tags: []string{"weather"}},
	} {
		var lat []time.Duration
		var got int
		for i := 0; i < *n; i++ {
			t0 := time.Now()
			p, err := s.Search(ctx, q)
			if err != nil {
				log.Fatal(err)
			}
			lat = append(lat, time.Since(t0))
			got = len(p.Entries)
		}
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		fmt.Printf("%-22q sort=%-9v tags=%v entries=%d median=%v p95=%v\n", q.Text, q.Sort, q.Tags, got, lat[len(lat)/2].Round(10*time.Microsecond), lat[len(lat)*95/100].Round(10*time.Microsecond))
	}
}
