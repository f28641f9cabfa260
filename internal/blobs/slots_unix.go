//go:build unix

package blobs

import (
	"syscall"
	"unsafe"
)

// allocSlots maps the table outside the Go heap: it holds no pointers, and
// on the heap it would raise the collector's target by twice its size.
// Pages are only resident once touched. It lives as long as the process.
func allocSlots(n int) []verifiedSlot {
	size := n * int(unsafe.Sizeof(verifiedSlot{}))
	b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]verifiedSlot, n)
	}
	return unsafe.Slice((*verifiedSlot)(unsafe.Pointer(unsafe.SliceData(b))), n)
}
