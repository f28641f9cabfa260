// Package postgres is the production store engine: PostgreSQL through a
// pgx v5 connection pool, with a weighted tsvector and GIN index for
// search and keyset pagination for every sort.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/migrate"
)

// DefaultOperationTimeout bounds one store call whose context has no
// deadline, so a hung database or an exhausted pool surfaces as
// ErrUnavailable instead of a request that never ends.
const DefaultOperationTimeout = 30 * time.Second

// Store is the PostgreSQL engine. It is safe for concurrent use.
type Store struct {
	pool           *pgxpool.Pool
	opTimeout      time.Duration
	analyze        analyzer
	analyzeRunning sync.Mutex
	folder         countFolder
}

var _ store.Store = (*Store)(nil)

type options struct {
	migrate bool
}

// Option changes how Open connects.
type Option func(*options)

// WithoutMigrations opens without applying migrations; the schema must then
// already be clean and current (checked), e.g. when `registry migrate up` runs
// as a separate deployment step.
func WithoutMigrations() Option { return func(o *options) { o.migrate = false } }

// Open connects to PostgreSQL, brings the schema up to date (unless
// WithoutMigrations) and returns a ready store. A schema left dirty by a
// failed migration is refused with migrate.ErrDirty.
func Open(ctx context.Context, dsn string, opts ...Option) (*Store, error) {
	o := options{migrate: true}
	for _, opt := range opts {
		opt(&o)
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		// The parse error can quote the DSN, password included: do not wrap it.
		return nil, store.ErrInvalid.With("postgres: the database URL is malformed")
	}
	if !strings.Contains(dsn, "pool_max_conns") {
		cfg.MaxConns = int32(max(8, 4*runtime.GOMAXPROCS(0)))
	}
	if _, ok := cfg.ConnConfig.RuntimeParams["application_name"]; !ok {
		cfg.ConnConfig.RuntimeParams["application_name"] = "agora-registry"
	}

	if o.migrate {
		err = migrate.Up(ctx, migrate.Postgres, dsn)
	} else {
		err = migrate.Check(ctx, migrate.Postgres, dsn)
	}
	if err != nil {
		return nil, classifyOpenError(err)
	}

	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, mapErr(err)
	}
	s := &Store{pool: pool, opTimeout: DefaultOperationTimeout}
	if err := s.Ping(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	s.loadRowEstimate(ctx)
	s.startFolding()
	return s, nil
}

// classifyOpenError keeps schema errors as they are and turns a database
// that cannot be reached into ErrUnavailable, so start-up can retry it.
func classifyOpenError(err error) error {
	if mapped := mapErr(err); isUnavailable(mapped) || misconfiguration(err) != nil {
		return mapped
	}
	return fmt.Errorf("postgres: %w", err)
}

// Engine names the engine.
func (s *Store) Engine() string { return "postgres" }

// Ping checks that the database answers and the schema is there.
func (s *Store) Ping(ctx context.Context) error {
	ctx, cancel := s.op(ctx)
	defer cancel()
	_, err := s.pool.Exec(ctx, "SELECT 1 FROM documents LIMIT 0")
	err = mapErr(err)
	if errors.Is(err, store.ErrUnavailable) {
		// The server may have ended every pooled connection (a restart, a
		// failover): drop them all, so requests after the recovery get new
		// ones instead of failing once per dead connection.
		s.pool.Reset()
	}
	return err
}

// Close stops the folding of counts, waits for a background statistics
// refresh and for borrowed connections, and closes the pool.
func (s *Store) Close() error {
	s.stopFolding()
	s.analyze.background.Wait()
	s.pool.Close()
	return nil
}

// Pool exposes the pool for benchmarks and operations (metrics).
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// op applies the default operation timeout to a context without deadline.
func (s *Store) op(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, s.opTimeout)
}
