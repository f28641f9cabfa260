package fault

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agora-registry/registry/internal/testing/pgtest"
)

// cluster drives the machine's PostgreSQL cluster with pg_ctlcluster.
type cluster struct {
	version string // directory name under /etc/postgresql
	admin   string // admin DSN on that cluster
}

// localCluster returns the cluster behind the admin DSN, or skips (fails
// with REGISTRY_TEST_REQUIRE_POSTGRES=1) when it is not a pg_ctlcluster
// cluster on this machine's loopback: a restart of anything else is not
// this test's to make.
func localCluster(t *testing.T) *cluster {
	t.Helper()
	admin, err := pgtest.AdminDSN()
	skip := func(format string, args ...any) {
		t.Helper()
		msg := "SKIPPING POSTGRESQL RESTART TEST: " + fmt.Sprintf(format, args...)
		if os.Getenv(pgtest.EnvRequirePostgres) == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	if err != nil {
		skip("%v", err)
	}
	if _, err := exec.LookPath("pg_ctlcluster"); err != nil {
		skip("pg_ctlcluster not found (a Debian/Ubuntu postgresql-common cluster is needed)")
	}
	u, err := url.Parse(admin)
	if err != nil || (u.Hostname() != "127.0.0.1" && u.Hostname() != "localhost") || (u.Port() != "" && u.Port() != "5432") {
		skip("%s must be a postgres:// URL for the local cluster on 127.0.0.1:5432", pgtest.EnvAdminDSN)
	}
	versions, err := os.ReadDir("/etc/postgresql")
	if err != nil || len(versions) != 1 {
		skip("want exactly one cluster version under /etc/postgresql (%v)", err)
	}
	return &cluster{version: versions[0].Name(), admin: admin}
}

// ctl runs `pg_ctlcluster <version> main <action>`.
func (c *cluster) ctl(action string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "pg_ctlcluster", "--skip-systemctl-redirect", c.version, "main", action).CombinedOutput()
	if err != nil {
		return fmt.Errorf("pg_ctlcluster %s: %v: %s", action, err, out)
	}
	return nil
}

// up reports whether the cluster accepts connections.
func (c *cluster) up() bool {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.admin)
	if err != nil {
		return false
	}
	conn.Close(ctx)
	return true
}

// ensureStarted brings the cluster back whatever happened to the test.
func (c *cluster) ensureStarted(t *testing.T) {
	if c.up() {
		return
	}
	if err := c.ctl("start"); err != nil && !c.up() {
		t.Errorf("PostgreSQL cluster left stopped, start it by hand: %v", err)
	}
}

// waitIdle waits until no client other than the given database's is
// connected, so that the restart does not break someone else's tests. It
// returns the sessions still there when the wait runs out.
func (c *cluster) waitIdle(ctx context.Context, ownDatabase string) (busy []string, err error) {
	conn, err := pgx.Connect(ctx, c.admin)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.Background())
	for {
		busy = busy[:0]
		rows, err := conn.Query(ctx, `SELECT coalesce(datname, '?') || ' (' || coalesce(application_name, '') || ')'
			FROM pg_stat_activity
			WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() AND datname IS DISTINCT FROM $1`, ownDatabase)
		if err != nil {
			return nil, err
		}
		busy, err = pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return nil, err
		}
		if len(busy) == 0 {
			return nil, nil
		}
		select {
		case <-ctx.Done():
			return busy, nil
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// databaseName is the database a DSN names.
func databaseName(t *testing.T, dsn string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(u.Path, "/")
}
