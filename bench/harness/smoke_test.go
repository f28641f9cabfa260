package harness

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSmoke runs the whole harness as `make bench` does, tiny: N=200, one
// second per measurement. It needs the registry to build and serve, so it
// only runs with REGISTRY_BENCH_SMOKE=1 (plain `go test` stays fast).
func TestSmoke(t *testing.T) {
	if os.Getenv("REGISTRY_BENCH_SMOKE") != "1" {
		t.Skip("set REGISTRY_BENCH_SMOKE=1 to run the benchmark harness end to end")
	}
	// The same variables benchrun reads, without its default URL: a smoke
	// test does not assume a server it was not told about.
	engines, dsn := "sqlite", os.Getenv("REGISTRY_BENCH_POSTGRES_DSN")
	if dsn == "" {
		dsn = os.Getenv("REGISTRY_TEST_POSTGRES_DSN")
	}
	if dsn != "" {
		engines = "sqlite,postgres"
	} else {
		t.Log("SQLite only: set REGISTRY_BENCH_POSTGRES_DSN (or REGISTRY_TEST_POSTGRES_DSN) to include PostgreSQL")
	}
	root, err := filepath.Abs("../..") // the registry's module, above this one
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "benchrun")
	build := exec.Command("go", "build", "-o", bin, "./cmd/benchrun")
	build.Dir = filepath.Join(root, "bench")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building benchrun: %v\n%s", err, out)
	}
	results, report := filepath.Join(tmp, "results"), filepath.Join(tmp, "BENCHMARKS.md")
	if err := os.WriteFile(report, []byte("# Intro kept\n\n"+beginMarker+"\nold\n"+endMarker+"\n\nOutro kept\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-n", "200", "-d", "1s", "-c", "8", "-engines", engines,
		"-repo", root, "-work", filepath.Join(tmp, "work"), "-results", results, "-report", report}
	if dsn != "" {
		args = append(args, "-postgres", dsn)
	}
	out, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("benchrun: %v\n%s", err, out)
	}
	t.Logf("benchrun output:\n%s", out)
	for _, engine := range strings.Split(engines, ",") {
		run, err := LoadRun(results, engine, 200)
		if err != nil || run == nil {
			t.Fatalf("%s: no stored run (%v)", engine, err)
		}
		for _, name := range AllScenarios {
			reg := run.Scenarios[name].Find("registry", "saturation")
			if reg == nil {
				t.Errorf("%s %s: no registry measurement", engine, name)
				continue
			}
			if reg.Requests == 0 || reg.Errors != 0 {
				t.Errorf("%s %s: %d requests, %d errors (first: %s)", engine, name, reg.Requests, reg.Errors, reg.FirstError)
			}
		}
		if run.Scenarios["hot"].Find("net/http", "saturation") == nil {
			t.Errorf("%s: hot has no net/http baseline", engine)
		}
		if run.Import == nil || run.Import.Documents != 200 {
			t.Errorf("%s: import not recorded: %+v", engine, run.Import)
		}
	}
	got, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# Intro kept", "Outro kept", "| target | measured | verdict |", "| scenario | req/s | CPU µs/resp |"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(string(got), "\nold\n") {
		t.Error("report kept the old generated part")
	}
}
