package sqliteprofile

import (
	"database/sql"
	"fmt"
	"os"
	"testing"

	storebench "github.com/agora-registry/registry/bench/store"
	"github.com/agora-registry/registry/internal/store/storetest"
)

// BenchmarkSearchTierCost times each full-text query a relevance search
// for the common word makes (one per tier) on a seeded store, read-only,
// and reports the rows each found. It needs a store, so it skips unless
// REGISTRY_MEMTEST_DB names one.
func BenchmarkSearchTierCost(b *testing.B) {
	path := os.Getenv("REGISTRY_MEMTEST_DB")
	if path == "" {
		b.Skip("set REGISTRY_MEMTEST_DB to a seeded SQLite store")
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	w := `"` + storetest.CommonWord + `"`
	all, title, meta := w, "{title} : ("+w+")", "{description tags} : ("+w+")"
	for _, q := range []struct{ name, expr string }{
		{"tier6-title-and-meta", fmt.Sprintf("(%s) AND (%s) AND (%s)", all, title, meta)},
		{"tier4-title-only", fmt.Sprintf("(%s) AND ((%s) NOT (%s))", all, title, meta)},
		{"tier2-meta-only", fmt.Sprintf("(%s) AND ((%s) NOT (%s))", all, meta, title)},
		{"tier0-body-only", fmt.Sprintf("((%s) NOT (%s)) NOT (%s)", all, title, meta)},
		{"count-all-matches", ""},
	} {
		b.Run(q.name, func(b *testing.B) {
			var n int
			cpu0 := storebench.ProcessCPU()
			for b.Loop() {
				if n, err = tierRows(db, all, q.expr); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n), "rows")
			b.ReportMetric(float64((storebench.ProcessCPU()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}

// tierRows runs one tier's first page (expr), or counts every match of
// all when expr is empty.
func tierRows(db *sql.DB, all, expr string) (int, error) {
	var n int
	if expr == "" {
		err := db.QueryRow(`SELECT count(*) FROM documents_fts WHERE documents_fts MATCH ?`, all).Scan(&n)
		return n, err
	}
	rows, err := db.Query(`SELECT rowid FROM documents_fts WHERE documents_fts MATCH ? ORDER BY rowid DESC LIMIT 21`, expr)
	if err != nil {
		return 0, err
	}
	for rows.Next() {
		n++
	}
	return n, rows.Close()
}
