// Package demobench measures the paper demo's GET / list on each engine
// (docs/benchmarks/demo-list.md).
package demobench
