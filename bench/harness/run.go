package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Options configure one harness run.
type Options struct {
	N           int
	Engines     []string // "sqlite", "postgres"
	Scenarios   []string // expanded names
	Duration    time.Duration
	Connections int
	RepoRoot    string // where ./cmd/registry is built from
	WorkDir     string // scratch space (documents, stores, logs)
	ResultsDir  string // JSON runs (docs/benchmarks)
	ReportPath  string // docs/BENCHMARKS.md
	AdminDSN    string // PostgreSQL admin URL
	SelfBin     string // this program, to start the baseline server
	ServeFlags  []string
	NoBaselines bool
	Log         *slog.Logger
}

// readyLimit bounds how long a server may take to become ready.
const readyLimit = 60 * time.Second

// Run measures everything the options ask for and rewrites the report.
func Run(ctx context.Context, o Options) error {
	if o.N < 1 {
		return errors.New("the document count (-n) must be at least 1")
	}
	stored := map[string]*EngineRun{} // what this run merges into, per engine
	for _, engine := range o.Engines {
		old, err := LoadRun(o.ResultsDir, engine, o.N)
		if err != nil {
			return err
		}
		if err := checkMergeable(old, o); err != nil {
			return fmt.Errorf("%w; measure with the stored settings, or write elsewhere with -results DIR -report FILE", err)
		}
		stored[engine] = old
	}
	if err := os.MkdirAll(o.WorkDir, 0o755); err != nil {
		return err
	}
	nginxBin := FindNginx()
	usesPG := slices.Contains(o.Engines, "postgres")
	dsn := ""
	if usesPG {
		dsn = o.AdminDSN
	}
	machine := DescribeMachine(ctx, dsn, nginxBin)
	if machine.Load1 > float64(machine.CPUs) {
		o.Log.Warn("the machine was busy just before this run (load average above the core count): compare ratios within the run", "load1", machine.Load1, "cpus", machine.CPUs)
	}

	o.Log.Info("building registry")
	regBin := filepath.Join(o.WorkDir, "registry")
	build := exec.CommandContext(ctx, "go", "build", "-o", regBin, "./cmd/registry")
	build.Dir = o.RepoRoot
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./cmd/registry: %v\n%s", err, out)
	}

	o.Log.Info("writing corpus", "n", o.N)
	corpus, err := WriteCorpus(filepath.Join(o.WorkDir, fmt.Sprintf("docs-%d", o.N)), o.N)
	if err != nil {
		return err
	}
	o.Log.Info("corpus ready", "bytes", corpus.Bytes, "common", corpus.Common, "rare", corpus.Rare, "tag", corpus.Tag)

	baselines := map[string]*ScenarioResult{}
	var notes []string
	if !o.NoBaselines {
		notes = append(notes, o.measureBaselines(ctx, corpus, nginxBin, baselines)...)
	}
	var pgb *Pgbench
	if usesPG && slices.Contains(o.Scenarios, "cold") {
		o.Log.Info("pgbench -S", "clients", o.Connections)
		p, err := RunPgbench(ctx, o.AdminDSN, o.Connections, int(max(o.Duration.Seconds(), 1)))
		if err != nil {
			notes = append(notes, "pgbench failed: "+err.Error())
		} else {
			pgb = &p
		}
	}

	for _, engine := range o.Engines {
		run := &EngineRun{Engine: engine, N: o.N, Date: time.Now().UTC(), Machine: machine, Connections: o.Connections,
			Seconds: o.Duration.Seconds(), Words: [3]string{corpus.Common, corpus.Rare, corpus.Tag},
			Scenarios: map[string]*ScenarioResult{}, Notes: notes}
		if engine == "postgres" {
			run.Pgbench = pgb
		}
		if err := o.runEngine(ctx, engine, regBin, corpus, baselines, run); err != nil {
			return fmt.Errorf("%s: %w", engine, err)
		}
		if err := SaveRun(o.ResultsDir, Merge(stored[engine], run)); err != nil {
			return err
		}
	}
	return WriteReport(o.ResultsDir, o.ReportPath)
}

// measureBaselines measures the raw scenarios on the net/http baseline and
// on nginx; the fixed rate of every raw scenario is half the net/http
// baseline's saturation throughput.
func (o Options) measureBaselines(ctx context.Context, c *Corpus, nginxBin string, into map[string]*ScenarioResult) []string {
	var raw []string
	for _, s := range o.Scenarios {
		if BuildScenario(s, &Fixtures{Corpus: c}).Raw {
			raw = append(raw, s)
		}
	}
	if len(raw) == 0 {
		return nil
	}
	var notes []string
	servers := []struct {
		name  string
		start func(addr string) (*Process, error)
	}{
		{"net/http", func(addr string) (*Process, error) {
			return StartProcess("baseline", o.WorkDir, nil, o.SelfBin, "baseline-server", "-addr", addr, "-dir", c.Dir)
		}},
	}
	if nginxBin == "" {
		notes = append(notes, "nginx not installed: the nginx column is skipped (install Debian's nginx-light)")
	} else {
		servers = append(servers, struct {
			name  string
			start func(addr string) (*Process, error)
		}{"nginx", func(addr string) (*Process, error) { return StartNginx(nginxBin, o.WorkDir, addr, c.Dir) }})
	}
	for _, srv := range servers {
		addr, err := FreeAddr()
		if err != nil {
			return append(notes, err.Error())
		}
		o.Log.Info("baseline", "server", srv.name, "addr", addr)
		t0 := time.Now()
		p, err := srv.start(addr)
		if err == nil {
			_, err = p.WaitReady("http://"+addr+"/protocol/"+c.Hexes[0], t0, readyLimit)
		}
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s baseline failed: %v", srv.name, err))
			if p != nil {
				p.Stop()
			}
			continue
		}
		pid, cpuPID := p.PID(), p.PID()
		if srv.name == "nginx" {
			pid = 0 // nginx's workers are children; its master's RSS says nothing
		}
		for _, name := range raw {
			sc := BuildScenario(name, &Fixtures{Corpus: c})
			res := into[name]
			if res == nil {
				res = &ScenarioResult{Name: name, Description: sc.Description, Date: time.Now().UTC()}
				into[name] = res
			}
			warmUp(ctx, sc, "http://"+addr, o.Connections, o.Duration)
			sat := Attack(ctx, srv.name, Load{Targeter: sc.Targeter("http://" + addr), Connections: o.Connections, Duration: o.Duration, Expect: sc.Expect, PID: pid, CPUPID: cpuPID})
			rate := sat.RPS / 2
			if ref := res.Find("net/http", "saturation"); ref != nil {
				rate = ref.RPS / 2
			}
			fixed := Attack(ctx, srv.name, Load{Targeter: sc.Targeter("http://" + addr), Connections: o.Connections, Rate: rate, Duration: o.Duration, Expect: sc.Expect, PID: pid, CPUPID: cpuPID})
			o.Log.Info("measured", "server", srv.name, "scenario", name, "rps", int(sat.RPS), "fixed_p99_ms", fixed.P99ms, "errors", sat.Errors+fixed.Errors)
			res.Measurements = append(res.Measurements, sat, fixed)
		}
		p.Stop()
	}
	return notes
}

// runEngine seeds one engine, starts the registry on it and measures.
func (o Options) runEngine(ctx context.Context, engine, regBin string, c *Corpus, baselines map[string]*ScenarioResult, run *EngineRun) error {
	dataDir := filepath.Join(o.WorkDir, fmt.Sprintf("%s-%d-data", engine, o.N))
	if err := os.RemoveAll(dataDir); err != nil {
		return err
	}
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return err
	}
	// The blob directory is named, so a PostgreSQL import fills the one the
	// server reads (on its own it fills only the embedded store's).
	env := []string{"REGISTRY_DATA_DIR=" + dataDir, "REGISTRY_DATABASE_URL=", "REGISTRY_BLOB_DIR=" + filepath.Join(dataDir, "blobs")}
	// All load comes from one loopback client, so the per-client rate limits
	// are off; request logs go to warn so the log file is not the bottleneck.
	serveArgs := []string{"serve", "--data-dir", dataDir, "--open-publish", "--no-examples",
		"--rate-limit", "0", "--publish-rate-limit", "0", "--log-level", "warn"}
	switch engine {
	case "sqlite":
	case "postgres":
		dbURL, drop, err := CreateDatabase(ctx, o.AdminDSN, "bench_registry")
		if err != nil {
			return err
		}
		defer drop()
		env[1] = "REGISTRY_DATABASE_URL=" + dbURL
		serveArgs = append(serveArgs, "--database-url", dbURL)
	default:
		return fmt.Errorf("unknown engine %q (sqlite, postgres)", engine)
	}

	o.Log.Info("bulk import", "engine", engine, "n", o.N)
	imp := exec.CommandContext(ctx, regBin, "import", c.Dir)
	imp.Env = append(os.Environ(), env...)
	t0 := time.Now()
	if out, err := imp.CombinedOutput(); err != nil {
		return fmt.Errorf("registry import: %v\n%s", err, tail(out))
	}
	secs := time.Since(t0).Seconds()
	run.Import = &Import{Documents: o.N, Bytes: c.Bytes, Seconds: secs, DocsPerSec: float64(o.N) / secs, Command: "registry import DIR (process start, migrations and all)"}
	o.Log.Info("imported", "docs_per_sec", int(run.Import.DocsPerSec))
	if dbURL := strings.TrimPrefix(env[1], "REGISTRY_DATABASE_URL="); dbURL != "" {
		// As after any bulk load: otherwise autovacuum reaches the new rows
		// (and the full-text indexes' pending lists) in the middle of the
		// measurements, for minutes at a million documents.
		took, err := vacuumAnalyze(ctx, dbURL)
		if err != nil {
			return err
		}
		run.Notes = append(run.Notes, fmt.Sprintf("ran VACUUM ANALYZE after the import (%.0f s), as after any bulk load", took.Seconds()))
	}

	addr, err := FreeAddr()
	if err != nil {
		return err
	}
	base := "http://" + addr
	serveArgs = append(serveArgs, "--addr", addr, "--public-url", base)
	serveArgs = append(serveArgs, o.ServeFlags...)
	if len(o.ServeFlags) > 0 {
		// Recorded so a run with e.g. --memory-limit is never mistaken for a default one.
		run.Notes = append(run.Notes, "registry serve extra flags: "+strings.Join(o.ServeFlags, " "))
	}
	t0 = time.Now()
	p, err := StartProcess("registry-"+engine, o.WorkDir, env, regBin, serveArgs...)
	if err != nil {
		return err
	}
	defer p.Stop()
	ready, err := p.WaitReady(base+"/protocol/"+c.Hexes[0], t0, readyLimit)
	if err != nil {
		return err
	}
	run.ReadyMs = float64(ready.Microseconds()) / 1000
	run.IdleMemory = SampleMemory(ctx, p.PID())()
	o.Log.Info("registry ready", "engine", engine, "ready_ms", run.ReadyMs)

	if err := checkBytes(base, c, o.N/2); err != nil {
		return err
	}
	if took, err := waitLogCaughtUp(base, o.N, 10*time.Minute); err != nil {
		run.Notes = append(run.Notes, "measured before the log caught up with the import: "+err.Error())
	} else {
		run.Notes = append(run.Notes, fmt.Sprintf("waited %.1f s for the log to integrate the import before measuring", took.Seconds()))
	}
	fx := &Fixtures{Corpus: c}
	fx.NextNew.Store(int64(o.N) + 1_000_000_000) // far past any corpus
	if slices.Contains(o.Scenarios, "search-deep") {
		fx.DeepCursor, fx.DeepPage, err = deepCursor(base, o.N)
		if err != nil {
			run.Notes = append(run.Notes, "search-deep skipped: "+err.Error())
		}
	}
	for _, name := range o.Scenarios {
		if name == "search-deep" && fx.DeepCursor == "" {
			continue
		}
		sc := BuildScenario(name, fx)
		conns := o.Connections
		if sc.Connections > 0 {
			conns = sc.Connections
		}
		res := &ScenarioResult{Name: name, Description: sc.Description, Date: time.Now().UTC()}
		if b := baselines[name]; b != nil {
			res.Measurements = append(res.Measurements, b.Measurements...)
		}
		if !strings.HasPrefix(name, "publish") { // a warm-up publish would change what is measured
			warmUp(ctx, sc, base, conns, o.Duration)
		}
		sat := Attack(ctx, "registry", Load{Targeter: sc.Targeter(base), Connections: conns, Duration: o.Duration, Expect: sc.Expect, PID: p.PID()})
		rate := sat.RPS / 2
		if ref := res.Find("net/http", "saturation"); ref != nil {
			rate = ref.RPS / 2
		}
		fixed := Attack(ctx, "registry", Load{Targeter: sc.Targeter(base), Connections: conns, Rate: rate, Duration: o.Duration, Expect: sc.Expect, PID: p.PID()})
		res.Measurements = append(res.Measurements, sat, fixed)
		run.Scenarios[name] = res
		o.Log.Info("measured", "engine", engine, "scenario", name, "rps", int(sat.RPS), "p99_ms", sat.P99ms, "fixed_rate", int(rate), "fixed_p99_ms", fixed.P99ms, "errors", sat.Errors+fixed.Errors, "first_error", sat.FirstError+fixed.FirstError, "peak_rss_mib", max(sat.Memory.PeakKiB, fixed.Memory.PeakKiB)/1024)
		if p.Exited() {
			return fmt.Errorf("registry exited during %s:\n%s", name, p.LogTail())
		}
	}
	return nil
}

// warmUp runs an unmeasured short load first, so connection set-up, page
// cache and JIT-like warm paths (statement caches, pools) are not measured.
func warmUp(ctx context.Context, sc Scenario, base string, conns int, d time.Duration) {
	Attack(ctx, "warm-up", Load{Targeter: sc.Targeter(base), Connections: conns, Duration: min(d/4, time.Second), Expect: sc.Expect})
}

// checkBytes verifies that the registry answers document i byte for byte,
// so a run against a broken server fails instead of measuring 404s.
func checkBytes(base string, c *Corpus, i int) error {
	resp, err := http.Get(base + "/protocol/" + c.Hexes[i])
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK || !bytes.Equal(got, generateDocument(i)) {
		return fmt.Errorf("GET /protocol/%s: status %d, %d bytes: not the seeded document", c.Hexes[i], resp.StatusCode, len(got))
	}
	return nil
}

// maxDeepPages bounds the walk to the deep search page.
const maxDeepPages = 50

// deepCursor follows the newest-first listing (100 per page) about half way
// into the store, at most maxDeepPages pages, and returns that page's cursor.
func deepCursor(base string, n int) (string, int, error) {
	pages := min(max(n/100/2, 1), maxDeepPages)
	cursor := ""
	for page := 1; page <= pages; page++ {
		u := base + "/api/v1/protocols?limit=100"
		if cursor != "" {
			u += "&cursor=" + url.QueryEscape(cursor)
		}
		resp, err := http.Get(u)
		if err != nil {
			return "", 0, err
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
		resp.Body.Close()
		if err != nil {
			return "", 0, err
		}
		if resp.StatusCode != http.StatusOK {
			return "", 0, fmt.Errorf("GET %s: %d %s", u, resp.StatusCode, tail(body))
		}
		next := nextCursor(body)
		if next == "" {
			if cursor == "" {
				return "", 0, fmt.Errorf("the listing's first page carries no next cursor: %s", tail(body))
			}
			return cursor, page, nil
		}
		cursor = next
	}
	return cursor, pages + 1, nil
}

// nextCursor finds the next-page cursor in a listing response, under the
// names a JSON API commonly uses.
func nextCursor(body []byte) string {
	var doc map[string]any
	if json.Unmarshal(body, &doc) != nil {
		return ""
	}
	for _, key := range []string{"next_cursor", "nextCursor", "cursor", "next"} {
		s, _ := doc[key].(string)
		if s == "" {
			continue
		}
		if u, err := url.Parse(s); err == nil && u.Query().Get("cursor") != "" {
			return u.Query().Get("cursor")
		}
		return s
	}
	return ""
}

func tail(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 1500 {
		s = "…" + s[len(s)-1500:]
	}
	return s
}
