//go:build !unix

package storebench

import "time"

// ProcessCPU is unknown here; the cpu-ms/op metric then reads 0.
func ProcessCPU() time.Duration { return 0 }
