//go:build unix

package storebench

import (
	"syscall"
	"time"
)

// ProcessCPU is the CPU time this process has used (user + system). The
// benchmarks report it beside wall time because on a shared machine wall
// time mostly measures the neighbours.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
