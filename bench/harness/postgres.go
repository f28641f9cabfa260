package harness

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os/exec"
	"regexp"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
)

// CreateDatabase makes a fresh database and returns its URL and a function
// that drops it.
func CreateDatabase(ctx context.Context, adminDSN, prefix string) (string, func(), error) {
	name := fmt.Sprintf("%s_%d_%06d", prefix, time.Now().Unix(), rand.IntN(1000000))
	conn, err := pgx.Connect(ctx, adminDSN)
	if err != nil {
		return "", nil, fmt.Errorf("connecting to PostgreSQL (%s): %w", redact(adminDSN), err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		return "", nil, fmt.Errorf("creating database %s: %w", name, err)
	}
	u, err := url.Parse(adminDSN)
	if err != nil {
		return "", nil, err
	}
	u.Path = "/" + name
	drop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if c, err := pgx.Connect(ctx, adminDSN); err == nil {
			_, _ = c.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
			c.Close(ctx)
		}
	}
	return u.String(), drop, nil
}

// vacuumAnalyze runs VACUUM ANALYZE on the database at dbURL and reports
// how long it took.
func vacuumAnalyze(ctx context.Context, dbURL string) (time.Duration, error) {
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return 0, fmt.Errorf("connecting to PostgreSQL (%s): %w", redact(dbURL), err)
	}
	defer conn.Close(ctx)
	t0 := time.Now()
	if _, err := conn.Exec(ctx, "VACUUM (ANALYZE)"); err != nil {
		return 0, fmt.Errorf("VACUUM ANALYZE after the import: %w", err)
	}
	return time.Since(t0), nil
}

func redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}

// Pgbench is one `pgbench -S` measurement.
type Pgbench struct {
	Clients   int     `json:"clients"`
	Threads   int     `json:"threads"`
	Scale     int     `json:"scale"`
	Seconds   int     `json:"seconds"`
	TPS       float64 `json:"tps"`
	LatencyMs float64 `json:"latency_avg_ms"`
	Command   string  `json:"command"`
}

var (
	tpsLine     = regexp.MustCompile(`tps = ([0-9.]+) \(without initial connection time\)`)
	latencyLine = regexp.MustCompile(`latency average = ([0-9.]+) ms`)
)

// RunPgbench initialises pgbench in its own database and runs the
// select-only script (prepared statements, as pgx uses) at clients.
func RunPgbench(ctx context.Context, adminDSN string, clients, seconds int) (Pgbench, error) {
	dbURL, drop, err := CreateDatabase(ctx, adminDSN, "bench_pgbench")
	if err != nil {
		return Pgbench{}, err
	}
	defer drop()
	const scale = 10
	if out, err := exec.CommandContext(ctx, "pgbench", "-i", "-q", "-s", strconv.Itoa(scale), dbURL).CombinedOutput(); err != nil {
		return Pgbench{}, fmt.Errorf("pgbench -i: %v\n%s", err, out)
	}
	threads := min(clients, 2)
	args := []string{"-S", "-n", "-M", "prepared", "-c", strconv.Itoa(clients), "-j", strconv.Itoa(threads), "-T", strconv.Itoa(seconds), dbURL}
	out, err := exec.CommandContext(ctx, "pgbench", args...).CombinedOutput()
	if err != nil {
		return Pgbench{}, fmt.Errorf("pgbench -S: %v\n%s", err, out)
	}
	p := Pgbench{Clients: clients, Threads: threads, Scale: scale, Seconds: seconds,
		Command: fmt.Sprintf("pgbench -S -n -M prepared -c %d -j %d -T %d (scale %d)", clients, threads, seconds, scale)}
	m := tpsLine.FindSubmatch(out)
	if m == nil {
		return p, fmt.Errorf("pgbench output has no tps line:\n%s", out)
	}
	p.TPS, _ = strconv.ParseFloat(string(m[1]), 64)
	if m := latencyLine.FindSubmatch(out); m != nil {
		p.LatencyMs, _ = strconv.ParseFloat(string(m[1]), 64)
	}
	return p, nil
}
