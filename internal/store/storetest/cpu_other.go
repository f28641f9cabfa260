//go:build !unix

package storetest

import "time"

// processCPU is unknown here; the cpu-ms/op metric then reads 0.
func processCPU() time.Duration { return 0 }
