package postgres

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// The profiles in writeprofile_test.go and readprofile_test.go measure the
// PostgreSQL server's CPU per operation (docs/benchmarks/postgres-write-profile.md).
// They run only when REGISTRY_PG_PROFILE names them, against the server of
// REGISTRY_TEST_POSTGRES_DSN, on the same machine (they read /proc).

// profileEnabled skips the test unless REGISTRY_PG_PROFILE lists name.
func profileEnabled(t *testing.T, name string) {
	t.Helper()
	for _, p := range strings.Split(os.Getenv("REGISTRY_PG_PROFILE"), ",") {
		if strings.TrimSpace(p) == name {
			return
		}
	}
	t.Skipf("set REGISTRY_PG_PROFILE=%s to run this profile", name)
}

// profileInt reads a positive integer setting, or def.
func profileInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// backendPID is the server process serving conn.
func backendPID(t testing.TB, conn *pgx.Conn) int {
	t.Helper()
	var pid int
	if err := conn.QueryRow(context.Background(), "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	return pid
}

// processCPU is the on-CPU time of a local process, from the scheduler's
// nanosecond account (/proc/PID/schedstat), so a busy machine's waiting
// does not count: only what the process itself ran.
func processCPU(t testing.TB, pid int) time.Duration {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/schedstat", pid))
	if err != nil {
		t.Fatalf("reading the server process's CPU time (is PostgreSQL on this machine?): %v", err)
	}
	ns, err := strconv.ParseInt(strings.Fields(string(b))[0], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return time.Duration(ns)
}

// serverCPU measures what fn costs the backend pid.
func serverCPU(t testing.TB, pid int, fn func()) time.Duration {
	t.Helper()
	before := processCPU(t, pid)
	fn()
	return processCPU(t, pid) - before
}

func mustExec(t testing.TB, conn *pgx.Conn, sql string, args ...any) {
	t.Helper()
	if _, err := conn.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%v\n%s", err, sql)
	}
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
