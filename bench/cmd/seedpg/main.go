// Command seedpg stores the benchmark corpus's documents [from, to) in a
// PostgreSQL store and keeps it, for EXPLAIN work on a large store.
package main

import (
	"context"
	"flag"
	"log"
	"time"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/postgres"
	"github.com/agora-registry/registry/internal/store/storetest"
)

func main() {
	dsn := flag.String("database-url", "", "PostgreSQL URL of an existing database")
	from := flag.Int("from", 0, "first corpus document")
	to := flag.Int("to", 1_000_000, "one past the last corpus document")
	flag.Parse()
	ctx := context.Background()
	s, err := postgres.Open(ctx, *dsn)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	start := time.Now()
	for i := *from; i < *to; i += 1000 {
		batch := make([]store.NewDocument, 0, 1000)
		for j := i; j < min(i+1000, *to); j++ {
			doc, err := protocol.Prepare(storetest.GenerateDocument(j), 0)
			if err != nil {
				log.Fatal(err)
			}
			batch = append(batch, store.NewDocument{Document: doc})
		}
		if _, err := s.PutMany(ctx, batch); err != nil {
			log.Fatal(err)
		}
		if (i-*from)%50000 == 0 {
			log.Printf("%d stored, %.0f docs/s", i-*from, float64(i-*from)/time.Since(start).Seconds())
		}
	}
	log.Printf("done in %v", time.Since(start))
}
