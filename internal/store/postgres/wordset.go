package postgres

import (
	"hash/maphash"
	"sync"
)

// wordSet is the set of words distinctWords has seen: open addressing
// over the words' hashes, reused across documents, because a Go map was
// the largest cost of preparing a document for PutMany
// (docs/benchmarks/postgres-write-profile.md).
type wordSet struct {
	seed  maphash.Seed
	slots []int32 // 0: empty; else 1 + an index into words
	words []string
}

var wordSets = sync.Pool{New: func() any { return &wordSet{seed: maphash.MakeSeed()} }}

// reset empties the set for about n words.
func (s *wordSet) reset(n int) {
	size := 64
	for size < 2*n {
		size *= 2
	}
	if cap(s.slots) >= size {
		s.slots = s.slots[:size]
		clear(s.slots)
	} else {
		s.slots = make([]int32, size)
	}
	clear(s.words)
	s.words = s.words[:0]
}

// add adds w and reports whether it was new.
func (s *wordSet) add(w string) bool {
	if 2*(len(s.words)+1) > len(s.slots) {
		s.grow()
	}
	mask := uint64(len(s.slots) - 1)
	for i := maphash.String(s.seed, w) & mask; ; i = (i + 1) & mask {
		j := s.slots[i]
		if j == 0 {
			s.words = append(s.words, w)
			s.slots[i] = int32(len(s.words))
			return true
		}
		if s.words[j-1] == w {
			return false
		}
	}
}

// grow doubles the table and places every word again.
func (s *wordSet) grow() {
	s.slots = make([]int32, 2*len(s.slots))
	mask := uint64(len(s.slots) - 1)
	for j, w := range s.words {
		i := maphash.String(s.seed, w) & mask
		for s.slots[i] != 0 {
			i = (i + 1) & mask
		}
		s.slots[i] = int32(j + 1)
	}
}
