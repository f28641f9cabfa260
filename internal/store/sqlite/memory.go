package sqlite

import "runtime"

// The page cache budget.
//
// modernc.org/sqlite builds SQLite with SQLITE_ENABLE_MEMORY_MANAGEMENT,
// which runs the page cache in its unified mode: one pool for every
// connection in the process, bounded by the SUM of the connections'
// cache_size, and any one connection may fill all of it (a reader evicts
// the least recently used page of any connection). The pool lives in
// modernc's C heap, outside the Go runtime's soft memory limit, where a
// page costs more than its size (docs/benchmarks/sqlite-memory.md). The
// file's pages stay in the operating system's cache anyway, so a miss here
// costs one pread, not a disk read: the budget is kept small.
const (
	// writeCacheKiB is the write connection's share: one Put touches a few
	// B-tree paths and a small full-text segment.
	writeCacheKiB = 4 * 1024
	// bulkWriteCacheKiB is its share during PutMany, whose full-text
	// merges read and rewrite segments of several MiB. Bulk import runs in
	// its own process (registry import), not in a serving registry.
	bulkWriteCacheKiB = 32 * 1024
	// readCacheKiB is the read connections' share, split among them.
	readCacheKiB = 2 * 1024
	// minReadCacheKiB keeps a reader's share above a few dozen pages on
	// machines with many cores (and so many readers).
	minReadCacheKiB = 128
)

// tuning holds the memory knobs of one Store: how many read connections
// and how much page cache each connection adds to the pool.
type tuning struct {
	readers       int
	readCacheKiB  int // each reader's share
	writeCacheKiB int
	bulkCacheKiB  int // the write connection's share during PutMany
	mmapKiB       int // 0: no memory-mapped reads (mapped pages would count as resident)
}

func defaultTuning() tuning {
	readers := max(4, 2*runtime.GOMAXPROCS(0))
	return tuning{
		readers:       readers,
		readCacheKiB:  max(minReadCacheKiB, readCacheKiB/readers),
		writeCacheKiB: writeCacheKiB,
		bulkCacheKiB:  bulkWriteCacheKiB,
	}
}
