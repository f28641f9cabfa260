// Package pgtest gives tests and benchmarks a fresh PostgreSQL database of
// their own. The server comes from REGISTRY_TEST_POSTGRES_DSN (an admin DSN)
// or, without it, from a throw-away testcontainers-go container. Without
// either, tests are skipped loudly — or fail, when
// REGISTRY_TEST_REQUIRE_POSTGRES=1 (CI sets it, so a missing database can
// never turn into a silently green run).
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Environment variables read by this package.
const (
	EnvAdminDSN        = "REGISTRY_TEST_POSTGRES_DSN"
	EnvRequirePostgres = "REGISTRY_TEST_REQUIRE_POSTGRES"
)

// DatabasePrefix starts the name of every database this package creates,
// so leftovers of a killed test run are easy to find and drop.
const DatabasePrefix = "agora_test_"

// adminTimeout bounds CREATE/DROP DATABASE; a server that takes longer is
// not usable for tests anyway.
const adminTimeout = 30 * time.Second

// ErrNoPostgres means neither an admin DSN nor Docker is available.
var ErrNoPostgres = errors.New("no PostgreSQL available: " + EnvAdminDSN + " is unset and Docker is not reachable")

// AdminDSN returns the DSN of a database role allowed to create databases:
// REGISTRY_TEST_POSTGRES_DSN, or else a container started once per test
// process. It returns ErrNoPostgres (wrapped) when there is neither.
func AdminDSN() (string, error) {
	if dsn := strings.TrimSpace(os.Getenv(EnvAdminDSN)); dsn != "" {
		return dsn, nil
	}
	return containerDSN()
}

// NewDatabase creates an empty database for one test, returns its DSN and
// drops it (forcibly, closing leftover connections) when the test ends.
func NewDatabase(t testing.TB) string {
	t.Helper()
	admin, err := AdminDSN()
	if err != nil {
		skipOrFail(t, err)
	}
	name := DatabasePrefix + randomSuffix(t)

	ctx, cancel := context.WithTimeout(context.Background(), adminTimeout)
	defer cancel()
	if err := adminExec(ctx, admin, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		t.Fatalf("pgtest: create database %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), adminTimeout)
		defer cancel()
		if err := adminExec(ctx, admin, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
			t.Errorf("pgtest: drop database %s: %v", name, err)
		}
	})
	dsn, err := WithDatabase(admin, name)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	return dsn
}

// WithDatabase returns dsn pointed at another database. It understands both
// URL ("postgres://...") and keyword/value ("host=... user=...") DSNs.
func WithDatabase(dsn, database string) (string, error) {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			return "", fmt.Errorf("admin DSN is not a valid URL: %w", err)
		}
		u.Path = "/" + database
		u.RawPath = ""
		return u.String(), nil
	}
	// In keyword/value DSNs a later key overrides an earlier one.
	return strings.TrimSpace(dsn) + " dbname=" + database, nil
}

func adminExec(ctx context.Context, dsn, sql string) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, sql)
	return err
}

func randomSuffix(t testing.TB) string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatalf("pgtest: random database name: %v", err)
	}
	return hex.EncodeToString(b[:])
}

// skipOrFail ends a test that has no PostgreSQL to run against.
func skipOrFail(t testing.TB, err error) {
	t.Helper()
	if os.Getenv(EnvRequirePostgres) == "1" {
		t.Fatalf("pgtest: %v (%s=1 requires PostgreSQL)", err, EnvRequirePostgres)
	}
	t.Skipf("SKIPPING POSTGRES TESTS: set %s (e.g. postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable) or start Docker. Cause: %v",
		EnvAdminDSN, err)
}
