//go:build memory.counters

package sqlite_test

import "modernc.org/libc"

// cHeapBytes is what modernc's C heap (SQLite's page caches and every other
// allocation of the engine) has mapped from the OS.
func cHeapBytes() int64 { return int64(libc.MemStat().Bytes) }
