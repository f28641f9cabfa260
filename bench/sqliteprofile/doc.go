// Package sqliteprofile holds SQLite measurements that print figures for
// docs/benchmarks/ and assert nothing, so each skips unless its variable is
// set (docs/configuration.md, "Tests and benchmarks").
package sqliteprofile
