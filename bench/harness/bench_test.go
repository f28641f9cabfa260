package harness

import (
	"crypto/sha256"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestExpandScenarios(t *testing.T) {
	got, err := ExpandScenarios("search,hot")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"hot", "search-common", "search-rare", "search-tag", "search-deep"}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if _, err := ExpandScenarios("hot,nope"); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("unknown scenario: err = %v", err)
	}
}

func TestNextCursor(t *testing.T) {
	for body, want := range map[string]string{
		`{"items":[],"next_cursor":"abc"}`:                  "abc",
		`{"nextCursor":"x1"}`:                               "x1",
		`{"next":"/api/v1/protocols?limit=100&cursor=zz9"}`: "zz9",
		`{"items":[],"next_cursor":""}`:                     "",
		`not json`:                                          "",
	} {
		if got := nextCursor([]byte(body)); got != want {
			t.Errorf("nextCursor(%s) = %q, want %q", body, got, want)
		}
	}
}

func TestQuantileAndThousands(t *testing.T) {
	var lat []time.Duration
	for i := 1; i <= 100; i++ {
		lat = append(lat, time.Duration(i)*time.Millisecond)
	}
	if q := quantile(lat, 0.99); q != 99*time.Millisecond {
		t.Errorf("p99 = %v", q)
	}
	if q := quantile(lat, 0.5); q != 50*time.Millisecond {
		t.Errorf("p50 = %v", q)
	}
	if q := quantile(nil, 0.5); q != 0 {
		t.Errorf("empty p50 = %v", q)
	}
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -4200: "-4,200"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestCorpusAndBaseline seeds a small corpus and fetches it through the
// baseline server over a real socket, as the harness does.
func TestCorpusAndBaseline(t *testing.T) {
	dir := t.TempDir()
	c, err := WriteCorpus(dir, 50)
	if err != nil {
		t.Fatal(err)
	}
	if c.Common == "" || c.Rare == "" || c.Tag == "" || c.Common == c.Rare {
		t.Errorf("search words: common %q rare %q tag %q", c.Common, c.Rare, c.Tag)
	}
	docs, err := LoadDir(dir)
	if err != nil || len(docs) != 50 {
		t.Fatalf("LoadDir: %d docs, %v", len(docs), err)
	}
	srv := httptest.NewServer(BaselineHandler(docs))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/protocol/" + c.Hexes[7])
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != string(generateDocument(7)) || resp.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Errorf("GET: %d %q, %d bytes", resp.StatusCode, resp.Header.Get("Content-Type"), len(body))
	}
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/protocol/"+c.Hexes[7], nil)
	req.Header.Set("If-None-Match", `"`+c.Hexes[7]+`"`)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match: %d, want 304", resp.StatusCode)
	}
	resp, err = http.Get(srv.URL + "/protocol/" + strings.Repeat("0", 40))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown: %d, want 404", resp.StatusCode)
	}
}

// TestAttackCountsErrors runs vegeta against a server that fails every
// other request, and checks errors and successes are told apart.
func TestAttackCountsErrors(t *testing.T) {
	var n atomic.Int64
	work := make([]byte, 1<<20)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A millisecond or so of CPU per request, so the measurement sees
		// at least one clock tick (10 ms) on a quiet machine.
		sha256.Sum256(work)
		if n.Add(1)%2 == 0 {
			w.WriteHeader(http.StatusTooManyRequests)
		}
	}))
	defer srv.Close()
	c, err := WriteCorpus(t.TempDir(), 3)
	if err != nil {
		t.Fatal(err)
	}
	sc := BuildScenario("hot", &Fixtures{Corpus: c})
	// The server is this process: its CPU per response is measured.
	m := Attack(t.Context(), "test", Load{Targeter: sc.Targeter(srv.URL), Connections: 1, Rate: 200, Duration: 200 * time.Millisecond, Expect: 200, PID: os.Getpid()})
	if m.Requests < 10 || m.Codes["429"] == 0 || m.Codes["200"] == 0 || m.Errors != m.Codes["429"] {
		t.Errorf("measurement %+v", m)
	}
	if _, err := os.Stat("/proc/self/stat"); err == nil && m.CPUus <= 0 {
		t.Errorf("no CPU per response measured: %+v", m)
	}
}

func TestReportKeepsHandWrittenText(t *testing.T) {
	dir := t.TempDir()
	report := filepath.Join(dir, "B.md")
	os.WriteFile(report, []byte("intro\n"+beginMarker+"\nstale\n"+endMarker+"\noutro\n"), 0o644)
	run := &EngineRun{Engine: "sqlite", N: 10, Scenarios: map[string]*ScenarioResult{
		"hot": {Name: "hot", Measurements: []Measurement{
			{Server: "net/http", Mode: "saturation", RPS: 1000, CPUus: 20},
			{Server: "registry", Mode: "saturation", RPS: 900, CPUus: 25},
			{Server: "registry", Mode: "fixed", TargetRate: 500, RPS: 499, P99ms: 7},
		}},
		"publish-new": {Name: "publish-new", Measurements: []Measurement{{Server: "registry", Mode: "saturation", RPS: 300}}},
		"cold": {Name: "cold", Date: time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC), Measurements: []Measurement{
			{Server: "registry", Mode: "fixed", TargetRate: 1000, RPS: 900, P99ms: 200},
		}},
	}, Date: time.Date(2026, 1, 3, 0, 0, 0, 0, time.UTC)}
	if err := SaveRun(dir, Merge(nil, run)); err != nil {
		t.Fatal(err)
	}
	if err := WriteReport(dir, report); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(report)
	s := string(got)
	for _, want := range []string{"intro\n", "\noutro\n", "### SQLite, N = 10\n", "| hot raw fetch ≥ 0.8× net/http | 0.90× | met |", "7.00 ms at 500/s | **missed**",
		"| publish ≥ 1,000 new docs/s, 16 clients | 300/s | not a target (set for PostgreSQL) |",
		"| cold | – | – | – | – | 1,000/s † | 0.00 | 200.00 | 0 |",
		"| hot | 900 | 25.0 | 0.00 | 0.90× net/http, CPU 1.25× net/http's | 500/s | 0.00 | 7.00 | 0 |",
		"Kept from an earlier run with the same settings: cold (2026-01-02 03:04 UTC)."} {
		if !strings.Contains(s, want) {
			t.Errorf("report lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "stale") {
		t.Error("stale generated text kept")
	}
}

func TestPartialRunsMergeOnlyWithTheSameSettings(t *testing.T) {
	stored := &EngineRun{Engine: "sqlite", N: 10, Seconds: 6, Connections: 32, Scenarios: map[string]*ScenarioResult{
		"hot":         {Name: "hot", Measurements: []Measurement{{Server: "net/http", Mode: "saturation"}, {Server: "registry", Mode: "saturation"}}},
		"search-rare": {Name: "search-rare", Measurements: []Measurement{{Server: "registry", Mode: "saturation"}}},
	}}
	same := Options{Duration: 6 * time.Second, Connections: 32, Scenarios: []string{"hot"}, ResultsDir: t.TempDir()}
	for _, c := range []struct {
		name string
		edit func(o *Options)
		ok   bool
	}{
		{"same settings", func(o *Options) {}, true},
		{"nothing stored", nil, true},
		{"other duration", func(o *Options) { o.Duration = 2 * time.Second }, false},
		{"other connections", func(o *Options) { o.Connections = 8 }, false},
		{"no baselines over a scenario stored with them", func(o *Options) { o.NoBaselines = true }, false},
		{"no baselines over a registry-only scenario", func(o *Options) { o.NoBaselines, o.Scenarios = true, []string{"search-rare", "resolve"} }, true},
	} {
		o, old := same, stored
		if c.edit == nil {
			old = nil
		} else {
			c.edit(&o)
		}
		if err := checkMergeable(old, o); (err == nil) != c.ok {
			t.Errorf("%s: checkMergeable = %v, want ok=%v", c.name, err, c.ok)
		}
	}
}

func TestHotLatencyTargetSaysWhichRateWasMeasured(t *testing.T) {
	run := func(withBaseline bool) string {
		ms := []Measurement{{Server: "registry", Mode: "fixed", TargetRate: 500, RPS: 500, P99ms: 3}}
		if withBaseline {
			ms = append(ms, Measurement{Server: "net/http", Mode: "saturation", RPS: 1000})
		}
		r := &EngineRun{Engine: "sqlite", N: 10, Scenarios: map[string]*ScenarioResult{"hot": {Name: "hot", Measurements: ms}}}
		return string(RenderRuns([]*EngineRun{r}))
	}
	if got := run(true); !strings.Contains(got, "| hot raw fetch p99 < 5 ms at half the baseline's rate | 3.00 ms at 500/s | met |") {
		t.Errorf("with a baseline:\n%s", got)
	}
	if got := run(false); !strings.Contains(got, "(measured at half the registry's own rate: no baseline in this run) | 3.00 ms at 500/s | met |") {
		t.Errorf("without a baseline:\n%s", got)
	}
}

// TestReportShowsOneRunPerEngine checks the compact report: each engine's
// table is its run at the target size (else its largest N), its other runs
// appear only in its growth table.
func TestReportShowsOneRunPerEngine(t *testing.T) {
	run := func(engine string, n int, rps float64) *EngineRun {
		return &EngineRun{Engine: engine, N: n, Scenarios: map[string]*ScenarioResult{"hot": {Name: "hot", Measurements: []Measurement{
			{Server: "registry", Mode: "saturation", RPS: rps, Errors: 2, Codes: map[string]int{"200": 5, "503": 2}},
			{Server: "registry", Mode: "fixed", TargetRate: rps / 2, RPS: rps / 2, P99ms: 3, Errors: 1, Codes: map[string]int{"503": 1}},
		}}}}
	}
	got := string(RenderRuns([]*EngineRun{
		run("sqlite", 10_000, 1000), run("sqlite", TargetN, 2000), run("sqlite", 1_000_000, 3000),
		run("postgres", 10_000, 4000), run("postgres", 1_000_000, 5000),
	}))
	for _, want := range []string{
		"### SQLite, N = 100,000\n", "| hot | 2,000 |", "Targets, SQLite at N = 100,000:",
		"| scenario | N = 10,000 | N = 100,000 | N = 1,000,000 |\n", "| hot | 1,000 (3.0) | 2,000 (3.0) | 3,000 (3.0) |",
		"### PostgreSQL, N = 1,000,000\n", "| hot | 5,000 |", "| hot | 4,000 (3.0) | 5,000 (3.0) |",
		"| 3 (503×3) |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}
	for _, unwanted := range []string{"### SQLite, N = 10,000", "### SQLite, N = 1,000,000", "### PostgreSQL, N = 10,000\n"} {
		if strings.Contains(got, unwanted) {
			t.Errorf("report has %q: one table per engine\n%s", unwanted, got)
		}
	}
	if n := strings.Count(got, "| scenario | req/s |"); n != 2 {
		t.Errorf("%d run tables, want one per engine", n)
	}
}
