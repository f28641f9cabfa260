// Package sketch counts distinct clients of one document on one day from
// 64-bit keyed hashes of their addresses (the addresses themselves never
// reach it): an exact set while small, a HyperLogLog beyond.
//
// Error bound: up to SparseMax (256) distinct hashes the count is exact
// (barring 64-bit hash collisions, about n²/2⁶⁵). Beyond, it is a
// HyperLogLog of 2^Precision = 4096 one-byte registers read with Ertl's
// improved estimator ("New cardinality estimation algorithms for
// HyperLogLog sketches", 2017), which has no bias region to switch
// around: relative standard error 1.04/√4096 ≈ 1.6 %, so about 99.7 % of
// estimates lie within ±4.9 % (TestEstimateErrorBound checks this
// statistically with a fixed seed).
//
// Merging is a union (set union, register maximum): merging a sketch into
// itself, or the same hashes twice, changes nothing, so a flush that is
// retried or a batch that holds a hash twice never counts a client twice.
package sketch

import (
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
	"slices"
)

const (
	// Precision is the HyperLogLog's index bits: 2^Precision registers.
	Precision = 12
	registers = 1 << Precision
	// SparseMax is the most hashes kept exactly (8 bytes each, so the
	// sparse form is never larger than half the dense one).
	SparseMax = 256

	kindSparse = 1
	kindDense  = 2
	// rankMax is the largest register value: leading zeros of the
	// 64-Precision hash bits after the index, plus one.
	rankMax = 64 - Precision + 1
)

// ErrCorrupt is a stored sketch that is not one this package wrote.
var ErrCorrupt = errors.New("corrupt client sketch")

// Of is the sketch of hashes (in any order, repeats allowed); nil when
// there are none. hashes is sorted in place.
func Of(hashes []uint64) []byte {
	if len(hashes) == 0 {
		return nil
	}
	slices.Sort(hashes)
	hashes = slices.Compact(hashes)
	if len(hashes) <= SparseMax {
		out := make([]byte, 1+8*len(hashes))
		out[0] = kindSparse
		for i, h := range hashes {
			binary.BigEndian.PutUint64(out[1+8*i:], h)
		}
		return out
	}
	out := make([]byte, 1+registers)
	out[0] = kindDense
	for _, h := range hashes {
		observe(out[1:], h)
	}
	return out
}

// observe records h in the dense registers r.
func observe(r []byte, h uint64) {
	i := h >> (64 - Precision)
	rank := byte(bits.LeadingZeros64(h<<Precision|1<<(Precision-1)) + 1)
	if rank > r[i] {
		r[i] = rank
	}
}

// Merge is the union of a and b (either may be empty). Neither is changed.
func Merge(a, b []byte) ([]byte, error) {
	if err := check(a); err != nil {
		return nil, err
	}
	if err := check(b); err != nil {
		return nil, err
	}
	switch {
	case len(a) == 0:
		return slices.Clone(b), nil
	case len(b) == 0:
		return slices.Clone(a), nil
	case a[0] == kindSparse && b[0] == kindSparse:
		return Of(append(sparseHashes(a), sparseHashes(b)...)), nil
	}
	out := make([]byte, 1+registers)
	out[0] = kindDense
	for _, s := range [][]byte{a, b} {
		if s[0] == kindDense {
			for i, v := range s[1:] {
				out[1+i] = max(out[1+i], v)
			}
			continue
		}
		for _, h := range sparseHashes(s) {
			observe(out[1:], h)
		}
	}
	return out, nil
}

func check(s []byte) error {
	switch {
	case len(s) == 0:
		return nil
	case s[0] == kindSparse && (len(s)-1)%8 == 0 && len(s)-1 <= 8*SparseMax:
		return nil
	case s[0] == kindDense && len(s) == 1+registers:
		for _, v := range s[1:] {
			if v > rankMax {
				return ErrCorrupt
			}
		}
		return nil
	}
	return ErrCorrupt
}

func sparseHashes(s []byte) []uint64 {
	out := make([]uint64, (len(s)-1)/8)
	for i := range out {
		out[i] = binary.BigEndian.Uint64(s[1+8*i:])
	}
	return out
}

// Estimate is how many distinct hashes s holds: exact for the sparse
// form, Ertl's improved HyperLogLog estimate for the dense one.
func Estimate(s []byte) (int64, error) {
	if err := check(s); err != nil {
		return 0, err
	}
	switch {
	case len(s) == 0:
		return 0, nil
	case s[0] == kindSparse:
		return int64((len(s) - 1) / 8), nil
	}
	var c [rankMax + 1]float64 // c[k]: registers holding k
	for _, v := range s[1:] {
		c[v]++
	}
	const m = float64(registers)
	q := rankMax - 1
	z := m * tau(1-c[q+1]/m)
	for k := q; k >= 1; k-- {
		z = 0.5 * (z + c[k])
	}
	z += m * sigma(c[0]/m)
	return int64(math.Round(m * m / (2 * math.Ln2) / z)), nil
}

func sigma(x float64) float64 {
	if x == 1 {
		return math.Inf(1)
	}
	y, z := 1.0, x
	for {
		x *= x
		prev := z
		z += x * y
		y += y
		if z == prev {
			return z
		}
	}
}

func tau(x float64) float64 {
	if x == 0 || x == 1 {
		return 0
	}
	y, z := 1.0, 1-x
	for {
		x = math.Sqrt(x)
		prev := z
		y *= 0.5
		z -= (1 - x) * (1 - x) * y
		if z == prev {
			return z / 3
		}
	}
}
