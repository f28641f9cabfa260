// Package importbench benchmarks the import pipeline (`registry import DIR`)
// on the corpus, alone and into each engine (docs/benchmarks/import-throughput.md).
package importbench
