package blobs

import (
	"encoding/binary"
	"sync"

	"github.com/agora-registry/registry/internal/protocol"
)

// verifiedSet remembers which file versions this process has hashed, so a
// blob is hashed once, not on every fetch. It is a fixed-size,
// set-associative table (verifiedSets × verifiedWays entries of 16 bytes,
// 4 MiB): memory does not grow with the store; past its capacity an
// evicted entry only costs one more hash.
type verifiedSet struct {
	locks [verifiedLocks]sync.Mutex
	slots []verifiedSlot
}

const (
	verifiedSets  = 1 << 16
	verifiedWays  = 4
	verifiedLocks = 256
)

type verifiedSlot struct {
	tag   uint64 // the digest's first 8 bytes
	stamp uint64 // the file version (see stamp); 0 when empty
}

func newVerifiedSet() *verifiedSet {
	return &verifiedSet{slots: make([]verifiedSlot, verifiedSets*verifiedWays)}
}

// where returns the digest's tag and its set's first slot and lock.
func where(d protocol.Digest) (tag uint64, first int, lock int) {
	tag = binary.LittleEndian.Uint64(d[:8])
	set := int(binary.LittleEndian.Uint32(d[8:12]) % verifiedSets)
	return tag, set * verifiedWays, set % verifiedLocks
}

func (v *verifiedSet) has(d protocol.Digest, stamp uint64) bool {
	tag, first, l := where(d)
	v.locks[l].Lock()
	defer v.locks[l].Unlock()
	for _, s := range v.slots[first : first+verifiedWays] {
		if s.tag == tag && s.stamp == stamp {
			return true
		}
	}
	return false
}

func (v *verifiedSet) add(d protocol.Digest, stamp uint64) {
	tag, first, l := where(d)
	v.locks[l].Lock()
	defer v.locks[l].Unlock()
	set := v.slots[first : first+verifiedWays]
	victim := int(stamp>>1) % verifiedWays
	for i, s := range set {
		if s.tag == tag || s.stamp == 0 {
			victim = i
			break
		}
	}
	set[victim] = verifiedSlot{tag: tag, stamp: stamp}
}
