// Package sqlite is the embedded store engine: one SQLite file (pure Go,
// modernc.org/sqlite) in WAL mode, with FTS5 for search. It is the default
// when no database URL is configured.
package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/agora-registry/registry/internal/regularfile"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/migrate"
)

// busyTimeoutMillis is how long a connection waits for a lock held by
// another connection (another process on the same file) before SQLITE_BUSY.
const busyTimeoutMillis = 10000

// pageSize is the page size of a new database file: larger than SQLite's
// 4 KiB default because most documents are a few KiB (fewer overflow
// pages) and the full-text index writes large segments.
const pageSize = 8192

// Store is the SQLite engine. All writes go through one connection, so
// writers queue in Go instead of failing with SQLITE_BUSY; reads use a pool
// that WAL lets run beside the writer.
type Store struct {
	write *sql.DB
	read  *sql.DB
	// writeCacheKiB and bulkCacheKiB are the write connection's page
	// cache share between and during bulk writes.
	writeCacheKiB, bulkCacheKiB int
	// writeMu serialises write transactions; the single write connection
	// would too, but holding the mutex makes "read max created_at, insert"
	// one step even across PutMany batches.
	writeMu sync.Mutex
	// witnessMu is the witness lock (LockWitnesses).
	witnessMu sync.Mutex
	// puts are Puts waiting for a grouped commit (groupcommit.go).
	puts putQueue
	// lists are the listing's statements, prepared on read.
	lists listStatements
}

var _ store.Store = (*Store)(nil)

// dsn builds a connection string. synchronous=FULL makes every commit
// durable across power loss before Put returns; NORMAL in WAL mode only
// survives process crashes, not power loss, so it is not enough for an
// acknowledged publish.
func dsn(path string, readOnly bool, tn tuning) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeoutMillis))
	q.Add("_pragma", "foreign_keys(1)")
	if tn.mmapKiB > 0 {
		q.Add("_pragma", fmt.Sprintf("mmap_size(%d)", tn.mmapKiB*1024))
	}
	if readOnly {
		q.Add("_pragma", "query_only(1)")
		q.Add("_pragma", fmt.Sprintf("cache_size(-%d)", tn.readCacheKiB))
	} else {
		q.Add("_pragma", fmt.Sprintf("cache_size(-%d)", tn.writeCacheKiB))
		// Statement journals stay in memory instead of temporary files.
		q.Add("_pragma", "temp_store(memory)")
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "synchronous(FULL)")
		// Take the write lock at BEGIN, so a transaction never fails halfway
		// when it upgrades from reading to writing.
		q.Set("_txlock", "immediate")
	}
	return "file:" + path + "?" + q.Encode()
}

func checkPath(path string) error {
	switch {
	case path == "" || path == ":memory:":
		return fmt.Errorf("sqlite: a database file path is required")
	case strings.ContainsAny(path, "?#"):
		return fmt.Errorf("sqlite: the database path %q must not contain '?' or '#'", path)
	}
	return nil
}

// Open opens (creating if needed) the database file at path and applies
// pending migrations. A database left dirty by a failed migration is
// refused with migrate.ErrDirty.
func Open(ctx context.Context, path string) (*Store, error) {
	return open(ctx, path, defaultTuning())
}

func open(ctx context.Context, path string, tn tuning) (*Store, error) {
	if err := CreateFile(path); err != nil {
		return nil, err
	}
	if err := initFile(ctx, path); err != nil {
		return nil, err
	}
	if err := migrate.Up(ctx, migrate.SQLite, path); err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	write, err := sql.Open("sqlite", dsn(path, false, tn))
	if err != nil {
		return nil, mapErr(err)
	}
	write.SetMaxOpenConns(1)
	write.SetMaxIdleConns(1)
	write.SetConnMaxLifetime(0)
	write.SetConnMaxIdleTime(0)

	read, err := sql.Open("sqlite", dsn(path, true, tn))
	if err != nil {
		write.Close()
		return nil, mapErr(err)
	}
	read.SetMaxOpenConns(tn.readers)
	read.SetMaxIdleConns(tn.readers)
	read.SetConnMaxIdleTime(0)

	s := &Store{write: write, read: read, writeCacheKiB: tn.writeCacheKiB, bulkCacheKiB: tn.bulkCacheKiB}
	if err := s.Ping(ctx); err != nil {
		s.Close()
		return nil, err
	}
	if s.lists, err = prepareList(ctx, read); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// CreateFile makes sure path is a regular file, creating it empty (an
// empty file is a new database) with mode 0600 when missing: SQLite would
// create it 0644 less the umask, readable by everyone when the operator
// made the directory, and gives its -wal and -shm files the database
// file's mode. The open does not block (a FIFO at path would hang SQLite's
// open for ever) and anything but a regular file is refused. An existing
// file keeps its mode.
func CreateFile(path string) error {
	if err := checkPath(path); err != nil {
		return err
	}
	f, _, err := regularfile.Open(path, os.O_RDONLY|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("sqlite: opening the database file: %w", err)
	}
	return f.Close()
}

// initFile sets the page size and WAL mode of a new file. The page size
// must be set before anything else touches the file (the driver applies
// DSN pragmas in alphabetical order, so journal_mode would come first); on
// an existing file it is a no-op.
func initFile(ctx context.Context, path string) error {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma="+url.QueryEscape(fmt.Sprintf("busy_timeout(%d)", busyTimeoutMillis)))
	if err != nil {
		return mapErr(err)
	}
	defer db.Close()
	for _, pragma := range []string{fmt.Sprintf("PRAGMA page_size = %d", pageSize), "PRAGMA journal_mode = WAL"} {
		if _, err := db.ExecContext(ctx, pragma); err != nil {
			return fmt.Errorf("sqlite: opening %s: %w", path, mapErr(err))
		}
	}
	return nil
}

// Engine names the engine.
func (s *Store) Engine() string { return "sqlite" }

// Ping checks that both pools answer.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.write.PingContext(ctx); err != nil {
		return mapErr(err)
	}
	if err := s.read.QueryRowContext(ctx, "SELECT 1 FROM documents LIMIT 0").Err(); err != nil {
		return mapErr(err)
	}
	return nil
}

// Close closes both pools.
func (s *Store) Close() error {
	s.lists.close()
	err1 := s.read.Close()
	err2 := s.write.Close()
	if err1 != nil {
		return err1
	}
	return err2
}
