//go:build ftsceiling

package sqliteprofile

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"

	storebench "github.com/agora-registry/registry/bench/store"
	"github.com/agora-registry/registry/internal/protocol"
)

// TestFTSCeiling measures, on one goroutine, what full-text indexing of the
// corpus costs at the least, in layers: FTS5's tokenizer alone (porter over
// unicode61, as documents_fts uses, and unicode61 without porter), then
// inserting the same four columns into a bare FTS5 table in one
// transaction. It prints docs per CPU-second; it checks nothing, so it
// only runs when asked:
//
//	REGISTRY_FTS_CEILING=1 REGISTRY_BENCH_DOCS=20000 go test -tags ftsceiling -vet=off -run TestFTSCeiling -v ./sqliteprofile/   (from bench/)
//
// (the build tag keeps it, and vet's complaints about the C pointers it
// handles, out of ordinary runs)
func TestFTSCeiling(t *testing.T) {
	if os.Getenv("REGISTRY_FTS_CEILING") == "" {
		t.Skip("set REGISTRY_FTS_CEILING=1 to measure the full-text ceiling")
	}
	n := storebench.BenchDocs()
	var rows [][4]string
	var bytes int
	for _, nd := range storebench.PrepareCorpus(t, 0, n) {
		d := nd.Document
		body := d.Content
		if _, rest, ok := protocol.SplitFrontMatter(d.Content); ok {
			body = rest
		}
		tags := protocol.NormaliseTags(d.Metadata.Tags)
		rows = append(rows, [4]string{d.Metadata.Title, d.Metadata.Description, strings.Join(tags, " "), string(body)})
		bytes += len(d.Content)
	}
	t.Logf("%d documents, %.0f bytes mean", n, float64(bytes)/float64(n))

	for _, tok := range []struct {
		name string
		args []string
	}{
		{"porter", []string{"unicode61", "remove_diacritics", "2"}},
		{"unicode61", []string{"remove_diacritics", "2"}},
	} {
		tokens, cpu := tokenizeAll(t, tok.name, tok.args, rows)
		t.Logf("tokenize %-9s %.0f docs/cpu-s, %.0f tokens/doc", tok.name, float64(n)/cpu.Seconds(), float64(tokens)/float64(n))
	}

	for _, table := range []string{
		`CREATE VIRTUAL TABLE f USING fts5 (title, description, tags, body, content = '', contentless_delete = 1,
			tokenize = 'porter unicode61 remove_diacritics 2')`,
		`CREATE VIRTUAL TABLE f USING fts5 (title, description, tags, body, content = '', contentless_delete = 1,
			tokenize = 'porter unicode61 remove_diacritics 2', detail = column)`,
	} {
		cpu := insertAll(t, table, rows)
		t.Logf("insert into bare fts5 (%s): %.0f docs/cpu-s", detailOf(table), float64(n)/cpu.Seconds())
	}
}

func detailOf(table string) string {
	if i := strings.Index(table, "detail = "); i >= 0 {
		return table[i:]
	}
	return "detail = full"
}

// insertAll inserts rows into a new FTS5 table in one transaction in a
// temporary file database and returns the CPU time it took.
func insertAll(t *testing.T, table string, rows [][4]string) time.Duration {
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "fts.db")+"?_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, table); err != nil {
		t.Fatal(err)
	}
	cpu0 := storebench.ProcessCPU()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := tx.PrepareContext(ctx, `INSERT INTO f (rowid, title, description, tags, body) VALUES (?, ?, ?, ?, ?)`)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		if _, err := st.ExecContext(ctx, i+1, r[0], r[1], r[2], r[3]); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return storebench.ProcessCPU() - cpu0
}

// tokenCount is the xToken callback: it counts tokens into *int64 at pCtx.
func tokenCount(tls *libc.TLS, pCtx uintptr, tflags int32, pToken uintptr, nToken, iStart, iEnd int32) int32 {
	*(*int64)(unsafe.Pointer(pCtx))++
	return 0
}

// cFunc is the C function pointer of a Go function, as modernc's
// generated code represents one.
func cFunc[T any](f T) uintptr { return *(*uintptr)(unsafe.Pointer(&struct{ f T }{f})) }

// goFunc is the Go function behind a C function pointer.
func goFunc[T any](p uintptr) T { return *(*T)(unsafe.Pointer(&struct{ uintptr }{p})) }

// tokenizeAll runs FTS5's named tokenizer over every column of rows through
// the C API (no table, no index) and returns the token count and the CPU
// time.
func tokenizeAll(t *testing.T, name string, args []string, rows [][4]string) (int64, time.Duration) {
	tls := libc.NewTLS()
	defer tls.Close()
	cstr := func(s string) uintptr {
		p, err := libc.CString(s)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	out := tls.Alloc(8)
	defer tls.Free(8)
	ptr := func() uintptr { return *(*uintptr)(unsafe.Pointer(out)) }

	memory := cstr(":memory:")
	defer libc.Xfree(tls, memory)
	if rc := sqlite3.Xsqlite3_open_v2(tls, memory, out, sqlite3.SQLITE_OPEN_READWRITE|sqlite3.SQLITE_OPEN_CREATE, 0); rc != 0 {
		t.Fatalf("open: %d", rc)
	}
	db := ptr()
	defer sqlite3.Xsqlite3_close(tls, db)

	// fts5_api is handed out by SELECT fts5(?1) with a bound pointer.
	query, ptrType := cstr("SELECT fts5(?1)"), cstr("fts5_api_ptr")
	defer libc.Xfree(tls, query)
	defer libc.Xfree(tls, ptrType)
	if rc := sqlite3.Xsqlite3_prepare_v2(tls, db, query, -1, out, 0); rc != 0 {
		t.Fatalf("prepare: %d", rc)
	}
	stmt := ptr()
	apiOut := tls.Alloc(8)
	defer tls.Free(8)
	*(*uintptr)(unsafe.Pointer(apiOut)) = 0
	sqlite3.Xsqlite3_bind_pointer(tls, stmt, 1, apiOut, ptrType, 0)
	sqlite3.Xsqlite3_step(tls, stmt)
	sqlite3.Xsqlite3_finalize(tls, stmt)
	api := (*sqlite3.Tfts5_api)(unsafe.Pointer(*(*uintptr)(unsafe.Pointer(apiOut))))
	if api == nil {
		t.Fatal("no fts5_api")
	}

	tokenizer := tls.Alloc(int(unsafe.Sizeof(sqlite3.Tfts5_tokenizer{})))
	defer tls.Free(int(unsafe.Sizeof(sqlite3.Tfts5_tokenizer{})))
	userData := tls.Alloc(8)
	defer tls.Free(8)
	zName := cstr(name)
	defer libc.Xfree(tls, zName)
	find := goFunc[func(*libc.TLS, uintptr, uintptr, uintptr, uintptr) int32](api.FxFindTokenizer)
	if rc := find(tls, uintptr(unsafe.Pointer(api)), zName, userData, tokenizer); rc != 0 {
		t.Fatalf("xFindTokenizer(%s): %d", name, rc)
	}
	methods := (*sqlite3.Tfts5_tokenizer)(unsafe.Pointer(tokenizer))

	argv := libc.Xmalloc(tls, libc.Tsize_t(8*max(1, len(args))))
	defer libc.Xfree(tls, argv)
	for i, a := range args {
		p := cstr(a)
		defer libc.Xfree(tls, p)
		*(*uintptr)(unsafe.Pointer(argv + uintptr(8*i))) = p
	}
	create := goFunc[func(*libc.TLS, uintptr, uintptr, int32, uintptr) int32](methods.FxCreate)
	if rc := create(tls, *(*uintptr)(unsafe.Pointer(userData)), argv, int32(len(args)), out); rc != 0 {
		t.Fatalf("xCreate(%s): %d", name, rc)
	}
	tok := ptr()
	defer goFunc[func(*libc.TLS, uintptr)](methods.FxDelete)(tls, tok)
	tokenize := goFunc[func(*libc.TLS, uintptr, uintptr, int32, uintptr, int32, uintptr) int32](methods.FxTokenize)

	counter := tls.Alloc(8)
	defer tls.Free(8)
	*(*int64)(unsafe.Pointer(counter)) = 0
	callback := cFunc(tokenCount)
	// The text must be in C memory; copy each row outside the timed part
	// would need a buffer per row, so one buffer is reused and its copy is
	// timed too (a memcpy of 4 KB is noise beside tokenizing it).
	bufSize := 1 << 20
	buf := libc.Xmalloc(tls, libc.Tsize_t(bufSize))
	defer libc.Xfree(tls, buf)
	cpu0 := storebench.ProcessCPU()
	for _, r := range rows {
		for _, col := range r {
			if len(col) == 0 {
				continue
			}
			if len(col) > bufSize {
				t.Fatalf("a column of %d bytes", len(col))
			}
			copy(unsafe.Slice((*byte)(unsafe.Pointer(buf)), len(col)), col)
			if rc := tokenize(tls, tok, counter, sqlite3.FTS5_TOKENIZE_DOCUMENT, buf, int32(len(col)), callback); rc != 0 {
				t.Fatalf("xTokenize: %d", rc)
			}
		}
	}
	return *(*int64)(unsafe.Pointer(counter)), storebench.ProcessCPU() - cpu0
}
