//go:build !memory.counters

package sqlite_test

// cHeapBytes is unknown without the memory.counters build tag.
func cHeapBytes() int64 { return -1 }
