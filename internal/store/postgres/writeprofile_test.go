package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/pgtest"
	"github.com/agora-registry/registry/internal/store/storetest"
)

// stageKind is one way of staging a batch for the INSERT.
type stageKind struct {
	name     string
	alter    []string                 // run on the new staging table %[1]s
	body     func(content []byte) any // the staged words value (nil: NULL)
	bodyExpr string                   // the indexed body text in SQL
}

var stageKinds = []stageKind{
	{name: "pglz", alter: []string{`ALTER TABLE %[1]s RESET (toast_tuple_target)`}, // as before: compressed past 2 kB
		body: func(c []byte) any { return bodyText(c) }, bodyExpr: "s.words"},
	{name: "external", alter: []string{`ALTER TABLE %[1]s ALTER content SET STORAGE EXTERNAL, ALTER words SET STORAGE EXTERNAL, SET (toast_tuple_target = 8160)`},
		body: func(c []byte) any { return bodyText(c) }, bodyExpr: "s.words"},
	{name: "inline", alter: []string{`ALTER TABLE %[1]s ALTER content SET STORAGE EXTERNAL, ALTER words SET STORAGE EXTERNAL, ALTER words DROP NOT NULL, SET (toast_tuple_target = 8160)`},
		body: func(c []byte) any { return nil }, bodyExpr: "coalesce(s.words, convert_from(s.content, 'UTF8'))"},
	{name: "dedup", alter: []string{`ALTER TABLE %[1]s ALTER content SET STORAGE EXTERNAL, ALTER words SET STORAGE EXTERNAL, SET (toast_tuple_target = 8160)`},
		body: func(c []byte) any { return distinctWords(bodyText(c)) }, bodyExpr: "s.words"},
}

func stageByName(name string) stageKind {
	for _, k := range stageKinds {
		if k.name == name {
			return k
		}
	}
	panic(name)
}

// bodyVector is migration 000001's body part of search: the body's
// lexemes, weighted D, with positions.
func bodyVector(body string) string {
	return "setweight(to_tsvector(" + textSearchConfig + ", " + body + "), 'D')"
}

// profileVariant is one table layout a staged batch is inserted into.
type profileVariant struct {
	name    string
	stage   string   // stageKinds name ("" = pglz, today's)
	setup   []string // run on the empty table (%[1]s is its name) before it is filled
	indexes []string // index names of profileIndexes, built after the fill
	head    string   // expression of the head column ("" = headVector)
	search  string   // expression of the search column ("" = head || bodyVector; %[1]s is the body vector)
	noSeq   bool     // without migration 000001's seq column (identity)
	counted bool     // with migration 000002's count trigger
}

// profileIndexes are the migrations' indexes on documents, by name, for a
// table %[1]s.
var profileIndexes = map[string]string{
	"pkey":       `ALTER TABLE %[1]s ADD PRIMARY KEY (digest)`,
	"seq":        `ALTER TABLE %[1]s ADD UNIQUE (seq)`,
	"search":     `CREATE INDEX ON %[1]s USING gin (search) WITH (fastupdate = on, gin_pending_list_limit = 1024)`,
	"head":       `CREATE INDEX ON %[1]s USING gin (head) WITH (fastupdate = on, gin_pending_list_limit = 256)`,
	"tags":       `CREATE INDEX ON %[1]s USING gin (tags)`,
	"newest":     `CREATE INDEX ON %[1]s (created_at, digest)`,
	"name":       `CREATE INDEX ON %[1]s ((lower(title) COLLATE "C"), digest)`,
	"created":    `CREATE INDEX ON %[1]s (created_at, seq)`,
	"supersedes": `CREATE INDEX ON %[1]s (supersedes) WHERE supersedes IS NOT NULL`,
}

var allProfileIndexes = []string{"pkey", "seq", "search", "head", "tags", "newest", "name", "created", "supersedes"}

func without(names []string, drop ...string) []string {
	var out []string
	for _, n := range names {
		keep := true
		for _, d := range drop {
			keep = keep && n != d
		}
		if keep {
			out = append(out, n)
		}
	}
	return out
}

const lz4Both = `ALTER TABLE %[1]s ALTER content SET COMPRESSION lz4, ALTER search SET COMPRESSION lz4`

// profileVariants are the variants of REGISTRY_PG_PROFILE_SET: breakdown
// (migration 000001's table changed in one thing each), after (000001
// against 000002's layout and write path), or both.
func profileVariants() []profileVariant {
	switch os.Getenv("REGISTRY_PG_PROFILE_SET") {
	case "breakdown":
		return breakdownVariants()
	case "after":
		return afterVariants()
	}
	return append(breakdownVariants(), afterVariants()...)
}

// afterVariants compare migration 000001's layout with 000002's.
func afterVariants() []profileVariant {
	all := allProfileIndexes
	after := without(all, "seq", "created")
	return []profileVariant{
		{name: "000001 layout, PutMany as before", indexes: all},
		{name: "000001 layout + count trigger", indexes: all, counted: true},
		{name: "000002 layout and PutMany, no count trigger", stage: "dedup", indexes: after, noSeq: true, setup: []string{lz4Both},
			search: "searchVector"},
		{name: "000002 layout and PutMany (as committed)", stage: "dedup", indexes: after, noSeq: true, counted: true, setup: []string{lz4Both},
			search: "searchVector"},
	}
}

func breakdownVariants() []profileVariant {
	all := allProfileIndexes
	vs := []profileVariant{
		{name: "as migrated (pglz, 9 indexes)", indexes: all},
		{name: "no body tsvector (search = head)", indexes: all, search: "h.head"},
		{name: "no tsvector at all", indexes: all, head: "''::tsvector", search: "''::tsvector"},
		{name: "content uncompressed (EXTERNAL)", indexes: all, setup: []string{`ALTER TABLE %[1]s ALTER content SET STORAGE EXTERNAL`}},
		{name: "search uncompressed (EXTERNAL)", indexes: all, setup: []string{`ALTER TABLE %[1]s ALTER search SET STORAGE EXTERNAL`}},
		{name: "content and search lz4", indexes: all, setup: []string{lz4Both}},
		{name: "GIN fastupdate off", indexes: without(all, "search", "head"), setup: []string{
			`CREATE INDEX ON %[1]s USING gin (search) WITH (fastupdate = off)`,
			`CREATE INDEX ON %[1]s USING gin (head) WITH (fastupdate = off)`}},
		{name: "GIN pending lists 64 MB (no merge in the batch)", indexes: without(all, "search", "head"), setup: []string{
			`CREATE INDEX ON %[1]s USING gin (search) WITH (fastupdate = on, gin_pending_list_limit = 65536)`,
			`CREATE INDEX ON %[1]s USING gin (head) WITH (fastupdate = on, gin_pending_list_limit = 65536)`}},
		{name: "primary key only", indexes: []string{"pkey"}},
		{name: "floor: primary key only, no tsvector, nothing compressed", indexes: []string{"pkey"}, head: "''::tsvector", search: "''::tsvector",
			setup: []string{`ALTER TABLE %[1]s ALTER content SET STORAGE EXTERNAL, ALTER search SET STORAGE EXTERNAL`}},
	}
	for _, ix := range all[1:] {
		vs = append(vs, profileVariant{name: "without index " + ix, indexes: without(all, ix)})
	}
	return append(vs,
		profileVariant{name: "staging uncompressed (EXTERNAL, 8 kB inline)", stage: "external", indexes: all},
		profileVariant{name: "staging content only, inline", stage: "inline", indexes: all},
		profileVariant{name: "staging inline + lz4", stage: "inline", indexes: all, setup: []string{lz4Both}},
		profileVariant{name: "staging distinct words", stage: "dedup", indexes: all},
		profileVariant{name: "staging distinct words + lz4", stage: "dedup", indexes: all, setup: []string{lz4Both}},
		profileVariant{name: "staging distinct words + lz4 + body lexemes stripped", stage: "dedup", indexes: all, setup: []string{lz4Both},
			search: "h.head || strip(%[1]s)"},
		profileVariant{name: "staging distinct words + lz4 + stripped + no created index", stage: "dedup", indexes: without(all, "created"), setup: []string{lz4Both},
			search: "h.head || strip(%[1]s)"},
	)
}

// TestWriteProfile breaks PutMany's server CPU per row down: the real path
// first, then the staged INSERT into copies of the documents table that
// differ in one thing each, batch by batch, interleaved.
func TestWriteProfile(t *testing.T) {
	profileEnabled(t, "write")
	ctx := context.Background()
	n := profileInt("REGISTRY_PG_PROFILE_DOCS", 20000)
	batches := profileInt("REGISTRY_PG_PROFILE_BATCHES", 4)
	dsn := pgtest.NewDatabase(t)

	// 1. The real path: PutMany through a one-connection pool, so one
	// backend does all the server work of the seeding.
	s, err := Open(ctx, dsn, WithMaxConns(1))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var pid int
	if err := s.pool.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	var perRow, analyzeCPU []float64
	var wall time.Duration
	for from := 0; from < n; from += 1000 {
		batch := storetest.PrepareCorpus(t, from, from+1000)
		before := s.analyze.baseline
		t0 := time.Now()
		cpu := serverCPU(t, pid, func() {
			if _, err := s.PutMany(ctx, batch); err != nil {
				t.Fatal(err)
			}
		})
		wall += time.Since(t0)
		if s.analyze.baseline != before {
			analyzeCPU = append(analyzeCPU, cpu.Seconds())
			continue
		}
		perRow = append(perRow, float64(cpu.Microseconds())/1000/1000)
	}
	var again int
	if err := s.pool.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&again); err != nil || again != pid {
		t.Fatalf("the pool changed its connection (%d, %d, %v): the CPU figures are wrong", pid, again, err)
	}
	t.Logf("real PutMany path, %d docs: server CPU %.3f ms/row (median of %d batches without ANALYZE); batches with ANALYZE+gin_clean_pending_list took %v s server CPU in all; wall %.0f docs/s",
		n, median(perRow), len(perRow), analyzeCPU, float64(n)/wall.Seconds())

	var putCPU []float64
	for i, nd := range storetest.PrepareCorpus(t, 2_000_000, 2_000_200) {
		cpu := serverCPU(t, pid, func() {
			if _, created, err := s.Put(ctx, nd); err != nil || !created {
				t.Fatalf("Put %d: created=%v, %v", i, created, err)
			}
		})
		putCPU = append(putCPU, float64(cpu.Microseconds())/1000)
	}
	t.Logf("real Put path: server CPU %.3f ms/Put (median of %d)", median(putCPU), len(putCPU))

	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	pid = backendPID(t, conn)

	// 2. Staged batches, shared by every variant: documents not seeded,
	// staged each way.
	copyCPU := map[string][]float64{}
	for k := range batches {
		docs := storetest.PrepareCorpus(t, 1_000_000+k*1000, 1_000_000+(k+1)*1000)
		for _, kind := range stageKinds {
			stage := fmt.Sprintf("stage_%s_%d", kind.name, k)
			mustExec(t, conn, strings.Replace(strings.Replace(putManyStaging, "TEMP TABLE IF NOT EXISTS put_many_staging", "UNLOGGED TABLE "+stage, 1), "ON COMMIT DELETE ROWS", "", 1))
			for _, sql := range kind.alter {
				mustExec(t, conn, fmt.Sprintf(sql, stage))
			}
			rows := stagedRows(t, docs, kind)
			cpu := serverCPU(t, pid, func() {
				if _, err := conn.CopyFrom(ctx, pgx.Identifier{stage}, stagingColumns, pgx.CopyFromRows(rows)); err != nil {
					t.Fatal(err)
				}
			})
			copyCPU[kind.name] = append(copyCPU[kind.name], float64(cpu.Microseconds())/1000/1000)
		}
		var differ int
		if err := conn.QueryRow(ctx, fmt.Sprintf(`SELECT count(*) FROM stage_pglz_%[1]d a JOIN stage_dedup_%[1]d b USING (digest)
			WHERE tsvector_to_array(to_tsvector(%[2]s, a.words)) <> tsvector_to_array(to_tsvector(%[2]s, b.words))`, k, textSearchConfig)).Scan(&differ); err != nil {
			t.Fatal(err)
		}
		if differ != 0 {
			t.Errorf("batch %d: %d documents' distinct words yield other lexemes than their body", k, differ)
		}
	}
	for _, kind := range stageKinds {
		t.Logf("COPY of 1000 rows, staging %s: %.3f ms/row server CPU (median of %d)", kind.name, median(copyCPU[kind.name]), batches)
	}
	for _, what := range []struct{ name, stage, expr string }{
		{"head tsvector (title A, description+tags B)", "pglz", headVector("title", "meta_text")},
		{"body tsvector (D)", "pglz", bodyVector("words")},
		{"head || body tsvector", "pglz", headVector("title", "meta_text") + " || " + bodyVector("words")},
		{"body tsvector of distinct words", "dedup", bodyVector("words")},
		{"detoast staged body text (pglz)", "pglz", "words"},
		{"body text from inline content (convert_from)", "inline", "convert_from(content, 'UTF8')"},
	} {
		var xs []float64
		for k := range batches {
			cpu := serverCPU(t, pid, func() {
				mustExec(t, conn, fmt.Sprintf("SELECT sum(length(%s)) FROM stage_%s_%d", what.expr, what.stage, k))
			})
			xs = append(xs, float64(cpu.Microseconds())/1000/1000)
		}
		t.Logf("computing %s alone: %.3f ms/row (median of %d batches)", what.name, median(xs), len(xs))
	}

	// 3. One copy of the documents table per variant, filled with the
	// seeded rows (values rebuilt, so each is stored by the variant's own
	// rules), indexes built after the fill.
	variants := profileVariants()
	for i, v := range variants {
		table := fmt.Sprintf("v%d", i)
		mustExec(t, conn, `CREATE TABLE `+table+` (LIKE documents INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE)
			WITH (toast_tuple_target = 128, autovacuum_enabled = false)`)
		if !v.noSeq {
			mustExec(t, conn, `ALTER TABLE `+table+` ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY`)
		}
		if v.counted {
			mustExec(t, conn, `CREATE TRIGGER counted AFTER INSERT ON `+table+`
				REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION documents_count_inserted()`)
		}
		for _, sql := range v.setup {
			if strings.Contains(sql, "INDEX") {
				continue
			}
			mustExec(t, conn, fmt.Sprintf(sql, table))
		}
		search := "search || ''::tsvector"
		switch {
		case v.search == "''::tsvector":
			search = v.search
		case strings.Contains(v.search, "strip"), v.search == "searchVector":
			search = "head || strip(search)"
		}
		mustExec(t, conn, `INSERT INTO `+table+` (`+insertColumns+`) SELECT digest, sha256, content || ''::bytea, size, title, description,
			multiround, tags, version, supersedes, authors, license, front_matter, lints, origin, created_at, withdrawn_at,
			withdraw_reason, `+orDefault(v.head == "''::tsvector", "''::tsvector", "head")+`, `+search+` FROM documents`)
		for _, ix := range v.indexes {
			mustExec(t, conn, fmt.Sprintf(profileIndexes[ix], table))
		}
		for _, sql := range v.setup {
			if strings.Contains(sql, "INDEX") {
				mustExec(t, conn, fmt.Sprintf(sql, table))
			}
		}
		mustExec(t, conn, `ANALYZE `+table)
		mustExec(t, conn, `CHECKPOINT`) // so each variant starts without pending full-page images
	}

	type result struct{ cpu, walBytes, walFPI, walRecords []float64 }
	results := make([]result, len(variants))
	for k := range batches {
		for j := range variants {
			i := (j + k) % len(variants) // rotate, so no variant always runs first
			v := variants[i]
			sql := profileInsert(fmt.Sprintf("v%d", i), k, v)
			var plan []byte
			mustExec(t, conn, "BEGIN")
			cpu := serverCPU(t, pid, func() {
				if err := conn.QueryRow(ctx, "EXPLAIN (ANALYZE, BUFFERS, WAL, TIMING OFF, FORMAT JSON) "+sql).Scan(&plan); err != nil {
					t.Fatalf("%v\n%s", err, sql)
				}
				mustExec(t, conn, "COMMIT")
			})
			wal := planWAL(t, plan)
			r := &results[i]
			r.cpu = append(r.cpu, float64(cpu.Microseconds())/1000/1000)
			r.walBytes = append(r.walBytes, wal.Bytes/1000)
			r.walFPI = append(r.walFPI, wal.FPI/1000)
			r.walRecords = append(r.walRecords, wal.Records/1000)
		}
	}
	var out strings.Builder
	fmt.Fprintf(&out, "\n| variant | server CPU ms/row (median of %d) | Δ vs as migrated | WAL bytes/row | WAL records/row | FPI/row |\n|---|---:|---:|---:|---:|---:|\n", batches)
	base := median(results[0].cpu)
	for i, v := range variants {
		r := results[i]
		fmt.Fprintf(&out, "| %s | %.3f | %+.3f | %.0f | %.1f | %.2f |\n", v.name, median(r.cpu), median(r.cpu)-base,
			median(r.walBytes), median(r.walRecords), median(r.walFPI))
	}
	t.Log(out.String())

	// 4. Work outside the INSERT: statistics and pending-list merges.
	for i, v := range variants {
		if strings.Contains(v.name, "64 MB") {
			cpu := serverCPU(t, pid, func() {
				mustExec(t, conn, fmt.Sprintf(`SELECT gin_clean_pending_list(indexrelid) FROM pg_index WHERE indrelid = 'v%d'::regclass
					AND indexrelid IN (SELECT oid FROM pg_class WHERE relam = (SELECT oid FROM pg_am WHERE amname = 'gin'))`, i))
			})
			t.Logf("%s: merging the GIN pending lists of %d rows afterwards: %.3f ms/row server CPU", v.name, batches*1000, float64(cpu.Microseconds())/1000/float64(batches*1000))
		}
	}
	for _, sql := range []string{
		"SELECT gin_clean_pending_list('documents_search_idx'::regclass)",
		"SELECT gin_clean_pending_list('documents_head_idx'::regclass)",
		"ANALYZE documents",
		"ANALYZE documents (digest, title, created_at, tags, supersedes, withdrawn_at)",
		"ANALYZE documents (search)",
		"ANALYZE documents (head)",
		"ANALYZE documents (content)",
		"VACUUM documents",
	} {
		cpu := serverCPU(t, pid, func() { mustExec(t, conn, sql) })
		t.Logf("%s at %d rows: %.0f ms server CPU", sql, n, float64(cpu.Microseconds())/1000)
	}
	for i, v := range variants {
		var size int64
		if err := conn.QueryRow(ctx, fmt.Sprintf("SELECT pg_total_relation_size('v%d')", i)).Scan(&size); err != nil {
			t.Fatal(err)
		}
		t.Logf("size of %q: %.1f MB for %d rows", v.name, float64(size)/1e6, n+batches*1000)
	}
}

func orDefault(cond bool, a, b string) string {
	if cond {
		return a
	}
	return b
}

func stagedRows(t *testing.T, docs []store.NewDocument, kind stageKind) [][]any {
	t.Helper()
	var rows [][]any
	for i, nd := range docs {
		values, err := insertValues(nd)
		if err != nil {
			t.Fatal(err)
		}
		values[len(values)-1] = kind.body(nd.Document.Content)
		rows = append(rows, append([]any{i}, values...))
	}
	return rows
}

// profileInsert is PutMany's INSERT from batch k staged v's way into table.
func profileInsert(table string, k int, v profileVariant) string {
	kind := stageByName(orDefault(v.stage == "", "pglz", v.stage))
	head, search := v.head, v.search
	if head == "" {
		head = "h.head"
	}
	if search == "" {
		search = "h.head || %[1]s"
	}
	if search == "searchVector" {
		search = searchVector("h.head", kind.bodyExpr)
	}
	if strings.Contains(search, "%[1]s") {
		search = fmt.Sprintf(search, bodyVector(kind.bodyExpr))
	}
	return `INSERT INTO ` + table + ` (` + insertColumns + `)
		SELECT digest, sha256, content, size, title, description, multiround, tags, version, supersedes,
		authors, license, front_matter, lints, origin, coalesce(created_at, now()), withdrawn_at, withdraw_reason, ` + head + `, ` + search + `
		FROM ` + fmt.Sprintf("stage_%s_%d", kind.name, k) + ` s CROSS JOIN LATERAL (SELECT ` + headVector("s.title", "s.meta_text") + ` AS head) h
		ORDER BY s.digest, s.ord ON CONFLICT (digest) DO NOTHING RETURNING digest`
}

type walUsage struct {
	Records, FPI, Bytes float64
}

func planWAL(t *testing.T, plan []byte) walUsage {
	t.Helper()
	var p []struct {
		Plan struct {
			Records float64 `json:"WAL Records"`
			FPI     float64 `json:"WAL FPI"`
			Bytes   float64 `json:"WAL Bytes"`
		} `json:"Plan"`
	}
	if err := json.Unmarshal(plan, &p); err != nil || len(p) == 0 {
		t.Fatalf("EXPLAIN output: %v", err)
	}
	return walUsage{p[0].Plan.Records, p[0].Plan.FPI, p[0].Plan.Bytes}
}
