//go:build !unix

package blobs

func allocSlots(n int) []verifiedSlot { return make([]verifiedSlot, n) }
