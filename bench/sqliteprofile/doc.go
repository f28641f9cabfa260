// Package sqliteprofile holds SQLite measurements for docs/benchmarks/ that
// need a prepared store or build tag, so each skips unless its variable is
// set (docs/configuration.md, "Tests and benchmarks").
package sqliteprofile
