// Package harness is the load benchmark behind `make bench`: it writes the
// corpus, starts the registry and the baselines as processes, drives them
// with vegeta over loopback and rebuilds docs/BENCHMARKS.md from the runs.
package harness
