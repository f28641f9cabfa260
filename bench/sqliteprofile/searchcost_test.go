package sqliteprofile

import (
	"database/sql"
	"fmt"
	"os"
	"testing"

	storebench "github.com/agora-registry/registry/bench/store"
	"github.com/agora-registry/registry/internal/store/storetest"
)

// TestSearchTierCost prints the CPU of each full-text query a relevance
// search for the common word makes (one per tier), on the seeded store of
// TestMemoryUnderLoad, read-only. A measurement, so it only runs when
// REGISTRY_MEMTEST_DB is set.
func TestSearchTierCost(t *testing.T) {
	path := os.Getenv("REGISTRY_MEMTEST_DB")
	if path == "" {
		t.Skip("set REGISTRY_MEMTEST_DB to run the search cost measurement")
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	w := `"` + storetest.CommonWord + `"`
	all, title, meta := w, "{title} : ("+w+")", "{description tags} : ("+w+")"
	for _, q := range []struct{ name, expr string }{
		{"tier 6 (title and meta)", fmt.Sprintf("(%s) AND (%s) AND (%s)", all, title, meta)},
		{"tier 4 (title only)", fmt.Sprintf("(%s) AND ((%s) NOT (%s))", all, title, meta)},
		{"tier 2 (meta only)", fmt.Sprintf("(%s) AND ((%s) NOT (%s))", all, meta, title)},
		{"tier 0 (body only)", fmt.Sprintf("((%s) NOT (%s)) NOT (%s)", all, title, meta)},
		{"count of all matches", ""},
	} {
		const runs = 20
		var n int
		cpu0 := storebench.ProcessCPU()
		for range runs {
			var err error
			if q.expr == "" {
				err = db.QueryRow(`SELECT count(*) FROM documents_fts WHERE documents_fts MATCH ?`, all).Scan(&n)
			} else {
				n = 0
				rows, qerr := db.Query(`SELECT rowid FROM documents_fts WHERE documents_fts MATCH ? ORDER BY rowid DESC LIMIT 21`, q.expr)
				if qerr != nil {
					t.Fatal(qerr)
				}
				for rows.Next() {
					n++
				}
				err = rows.Close()
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("%-24s %3d rows  %6.2f ms CPU per query", q.name, n, float64((storebench.ProcessCPU()-cpu0).Microseconds())/1000/runs)
	}
}
