// Command rawab is a temporary A/B driver for the raw path's layers: one
// import, then each variant's server in turn (interleaved, repeated), the
// raw scenarios at saturation, CPU per response printed. Removed after the
// measurement.
//
//	rawab -n 100000 -work /tmp/rawab -reps 3 -v 'base=BIN||' -v 'nohot=BIN|nohot|' -v 'nocache=BIN||--cache-bytes 0'
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/agora-registry/registry/bench/harness"
)

type variant struct{ name, bin, exp, flags string }

type multi []string

func (m *multi) String() string     { return strings.Join(*m, " ") }
func (m *multi) Set(s string) error { *m = append(*m, s); return nil }

func main() {
	if len(os.Args) > 1 && os.Args[1] == "baseline-server" {
		fs := flag.NewFlagSet("baseline-server", flag.ExitOnError)
		addr := fs.String("addr", "127.0.0.1:0", "")
		dir := fs.String("dir", "", "")
		fs.Parse(os.Args[2:])
		check(harness.ServeBaseline(context.Background(), *addr, *dir))
		return
	}
	n := flag.Int("n", 100000, "documents")
	work := flag.String("work", "/tmp/rawab", "scratch directory (corpus and data kept)")
	reps := flag.Int("reps", 3, "repetitions")
	d := flag.Duration("d", 4*time.Second, "saturation length")
	c := flag.Int("c", 32, "connections")
	scen := flag.String("scenarios", "hot,cold,head,revalidate", "scenarios")
	var vs multi
	flag.Var(&vs, "v", "name=BIN|RAWEXP|serve flags ('net/http' runs the baseline)")
	flag.Parse()
	ctx := context.Background()
	var variants []variant
	for _, s := range vs {
		name, rest, _ := strings.Cut(s, "=")
		parts := strings.SplitN(rest, "|", 3)
		for len(parts) < 3 {
			parts = append(parts, "")
		}
		variants = append(variants, variant{name, parts[0], parts[1], parts[2]})
	}
	corpus, err := harness.WriteCorpus(filepath.Join(*work, fmt.Sprintf("docs-%d", *n)), *n)
	check(err)
	dataDir := filepath.Join(*work, fmt.Sprintf("data-%d", *n))
	env := []string{"REGISTRY_DATA_DIR=" + dataDir, "REGISTRY_DATABASE_URL=", "REGISTRY_BLOB_DIR=" + filepath.Join(dataDir, "blobs")}
	if _, err := os.Stat(dataDir); err != nil {
		check(os.MkdirAll(dataDir, 0o755))
		imp := exec.Command(variants[0].bin, "import", corpus.Dir)
		imp.Env = append(os.Environ(), env...)
		out, err := imp.CombinedOutput()
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s\n", out)
			check(err)
		}
	}
	self, _ := os.Executable()
	fx := &harness.Fixtures{Corpus: corpus}
	for rep := 0; rep < *reps; rep++ {
		for i := range variants {
			v := variants[(i+rep)%len(variants)]
			addr, err := harness.FreeAddr()
			check(err)
			base := "http://" + addr
			var p *harness.Process
			t0 := time.Now()
			if v.name == "net/http" {
				p, err = harness.StartProcess("baseline", *work, nil, self, "baseline-server", "-addr", addr, "-dir", corpus.Dir)
			} else {
				args := []string{"serve", "--data-dir", dataDir, "--open-publish", "--no-examples",
					"--rate-limit", "0", "--publish-rate-limit", "0", "--log-level", "warn", "--addr", addr, "--public-url", base}
				args = append(args, strings.Fields(v.flags)...)
				p, err = harness.StartProcess("registry-"+strings.ReplaceAll(v.name, "/", "_"), *work, append(env, "RAWEXP="+v.exp), v.bin, args...)
			}
			check(err)
			if _, err := p.WaitReady(base+"/protocol/"+corpus.Hexes[0], t0, time.Minute); err != nil {
				fmt.Fprintln(os.Stderr, p.LogTail())
				check(err)
			}
			for _, name := range strings.Split(*scen, ",") {
				sc := harness.BuildScenario(name, fx)
				harness.Attack(ctx, "warm-up", harness.Load{Targeter: sc.Targeter(base), Connections: *c, Duration: time.Second, Expect: sc.Expect})
				m := harness.Attack(ctx, v.name, harness.Load{Targeter: sc.Targeter(base), Connections: *c, Duration: *d, Expect: sc.Expect, PID: p.PID()})
				fmt.Printf("%d\t%s\t%s\t%.2f\t%.0f\t%d\n", rep, v.name, name, m.CPUus, m.RPS, m.Errors)
			}
			p.Stop()
		}
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "rawab:", err)
		os.Exit(1)
	}
}
