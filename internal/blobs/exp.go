package blobs

import (
	"os"
	"strings"
)

// Exp is a temporary switch for measuring the raw path's layers one at a
// time (RAWEXP=nohot,noverified,...); it is removed after the measurement.
func Exp(name string) bool { return strings.Contains(","+os.Getenv("RAWEXP")+",", ","+name+",") }

var (
	expNoVerified = Exp("noverified")
	expNoPool     = Exp("nopool")
	expHeapSlots  = Exp("heapslots")
)
