package config

// Resident memory the Go runtime does not count, which a memory budget must
// leave room for before the rest becomes the runtime's soft limit.
const (
	// codeReserve covers the program's own file-backed pages (its code and
	// read-only data) and the runtime overshooting its soft limit between
	// collections (docs/benchmarks/sqlite-memory.md, "Reserves").
	codeReserve = 24 << 20
	// sqliteReserve covers the embedded SQLite's C heap, outside the Go
	// runtime: its page caches and temporary structures
	// (docs/benchmarks/sqlite-memory.md, "Reserves").
	sqliteReserve = 24 << 20
)

// MemoryLimitSource says where the soft memory limit came from.
type MemoryLimitSource string

const (
	LimitFromFlag   MemoryLimitSource = "--memory-limit"
	LimitFromEnv    MemoryLimitSource = "GOMEMLIMIT"
	LimitFromBudget MemoryLimitSource = "--memory-budget"
	LimitNone       MemoryLimitSource = "none"
)

// GoMemoryLimit is the soft memory limit the Go runtime should run under,
// in bytes: --memory-limit when given, else GOMEMLIMIT's (which the runtime
// has already applied; limit is then 0, meaning leave it), else the memory
// budget minus what the runtime does not count. The limit makes the
// collector work harder, not fail: with a live heap above it the process
// still runs, the collector capped at half the CPU.
func (c *Serve) GoMemoryLimit(getenv func(string) string) (limit int64, from MemoryLimitSource) {
	switch {
	case c.MemoryLimit > 0:
		return int64(c.MemoryLimit), LimitFromFlag
	case getenv("GOMEMLIMIT") != "":
		return 0, LimitFromEnv
	case c.MemoryBudget <= 0:
		return 0, LimitNone
	}
	reserve := int64(codeReserve)
	if c.DatabaseURL == "" {
		reserve += sqliteReserve
	}
	budget := int64(c.MemoryBudget)
	return max(budget-reserve, budget/2), LimitFromBudget
}
