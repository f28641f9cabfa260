package main

import (
	"log/slog"
	"runtime/debug"

	"github.com/agora-registry/registry/internal/config"
)

// applyMemoryLimit sets the Go runtime's soft memory limit from the
// configuration (see config.Serve.GoMemoryLimit) and logs it, so an
// operator can see which setting is in force.
func applyMemoryLimit(cfg *config.Serve, getenv func(string) string, log *slog.Logger) {
	limit, from := cfg.GoMemoryLimit(getenv)
	if limit > 0 {
		debug.SetMemoryLimit(limit)
	}
	if current := debug.SetMemoryLimit(-1); from != config.LimitNone {
		log.Info("memory limit", "softLimitBytes", current, "from", string(from), "budgetBytes", cfg.MemoryBudget)
		// The cache is live data the collector can never free: above half
		// the limit, it would collect almost continuously.
		if cfg.CacheBytes > 0 && int64(cfg.CacheBytes) > current/2 {
			log.Warn("--cache-bytes is more than half the soft memory limit; raise --memory-budget or lower --cache-bytes",
				"cacheBytes", cfg.CacheBytes, "softLimitBytes", current)
		}
	}
}
