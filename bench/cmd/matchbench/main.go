// Command matchbench runs the task match benchmark (package matchbench)
// and prints, or writes, its rows.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/agora-registry/registry/bench/matchbench"
)

func main() {
	n := flag.Int("n", 100_000, "documents in the padded corpus (the corpus alone is always measured too)")
	engines := flag.String("engines", "sqlite", "engines: sqlite,postgres (postgres needs REGISTRY_TEST_POSTGRES_DSN)")
	write := flag.String("write", "", "write the rows as JSON to this file (docs/benchmarks/match.json)")
	misses := flag.Bool("misses", false, "print the tasks whose right protocol was not first")
	flag.Parse()
	err := matchbench.Main(context.Background(), matchbench.Config{N: *n, Engines: strings.Split(*engines, ","),
		Write: *write, Misses: *misses, Getenv: os.Getenv, Out: os.Stdout})
	if err != nil {
		fmt.Fprintln(os.Stderr, "matchbench:", err)
		os.Exit(1)
	}
}
