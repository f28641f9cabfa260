package blobs

import (
	"encoding/binary"
	"sync"

	"github.com/agora-registry/registry/internal/protocol"
)

// verifiedSet remembers which file versions this process has hashed, and
// their sizes, so a blob is hashed once, not on every fetch, and a HEAD or
// a revalidation needs no system call at all (a document's size never
// changes, and documents are never deleted, only withdrawn). It is a
// fixed-size, set-associative table (verifiedSets × verifiedWays entries
// of 24 bytes, 3 MiB; files are at most 4 GiB): memory does not grow with the store; past its
// capacity an evicted entry only costs one more hash. Measured: without it
// CPU per HEAD +25 %, per 304 +10 % (docs/BENCHMARKS.md, "Raw path layers").
type verifiedSet struct {
	locks [verifiedLocks]sync.Mutex
	slots []verifiedSlot
}

const (
	verifiedSets  = 1 << 15
	verifiedWays  = 4
	verifiedLocks = 256
)

type verifiedSlot struct {
	tag   uint64 // the digest's first 8 bytes
	stamp uint64 // the file version (see stamp); 0 when empty
	size  uint32
	hits  uint32 // opens since verified (saturating)
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

// size returns the size of d's last verified file.
func (v *verifiedSet) size(d protocol.Digest) (int64, bool) {
	tag, first, l := where(d)
	v.locks[l].Lock()
	defer v.locks[l].Unlock()
	for _, s := range v.slots[first : first+verifiedWays] {
		if s.tag == tag && s.stamp != 0 {
			return int64(s.size), true
		}
	}
	return 0, false
}

// hit reports whether d's file version is verified and counts the open.
func (v *verifiedSet) hit(d protocol.Digest, stamp uint64) (hits uint32, ok bool) {
	tag, first, l := where(d)
	v.locks[l].Lock()
	defer v.locks[l].Unlock()
	for i := first; i < first+verifiedWays; i++ {
		if s := &v.slots[i]; s.tag == tag && s.stamp == stamp {
			if s.hits < ^uint32(0) {
				s.hits++
			}
			return s.hits, true
		}
	}
	return 0, false
}

func (v *verifiedSet) add(d protocol.Digest, stamp uint64, size int64) {
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
	set[victim] = verifiedSlot{tag: tag, stamp: stamp, size: uint32(size), hits: 1}
}

// forget drops d (a removed or damaged file).
func (v *verifiedSet) forget(d protocol.Digest) {
	tag, first, l := where(d)
	v.locks[l].Lock()
	defer v.locks[l].Unlock()
	for i := first; i < first+verifiedWays; i++ {
		if v.slots[i].tag == tag {
			v.slots[i] = verifiedSlot{}
		}
	}
}
