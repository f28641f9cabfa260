package sketch

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

func hashes(r *rand.Rand, n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = r.Uint64()
	}
	return out
}

func estimate(t *testing.T, s []byte) int64 {
	t.Helper()
	n, err := Estimate(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Up to SparseMax distinct hashes the count is exact, repeats counted once.
func TestSmallCountsAreExact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 100, SparseMax} {
		hs := hashes(r, n)
		hs = append(hs, hs...) // every client twice
		if got := estimate(t, Of(hs)); got != int64(n) {
			t.Errorf("%d distinct hashes: %d", n, got)
		}
	}
}

// The documented bound: relative standard error 1.04/√4096 (1.6 %) past
// the exact range, so almost every estimate is within 3σ (4.9 %) and the
// root mean square error is near σ. A fixed seed makes the run repeatable.
func TestEstimateErrorBound(t *testing.T) {
	r := rand.New(rand.NewPCG(20261206, 1))
	sigma := 1.04 / math.Sqrt(registers)
	for _, n := range []int{SparseMax + 1, 500, 1000, 3000, 10000, 30000, 100000} {
		const trials = 40
		var sumSq float64
		for range trials {
			got := estimate(t, Of(hashes(r, n)))
			rel := (float64(got) - float64(n)) / float64(n)
			if math.Abs(rel) > 3*sigma {
				t.Errorf("n=%d: estimate %d is %.2f%% off, past 3σ", n, got, 100*rel)
			}
			sumSq += rel * rel
		}
		if rms := math.Sqrt(sumSq / trials); rms > 1.5*sigma {
			t.Errorf("n=%d: rms error %.2f%%, want about %.2f%%", n, 100*rms, 100*sigma)
		}
	}
}

// Merging is a union: the same hashes merged again, or a sketch merged
// into itself, count once; two halves merge to the whole, across forms.
func TestMergeIsAUnion(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{10, SparseMax, 2000} {
		hs := hashes(r, 2*n)
		whole := Of(append([]uint64(nil), hs...))
		a, b := Of(append([]uint64(nil), hs[:n]...)), Of(append([]uint64(nil), hs[n:]...))
		m, err := Merge(a, b)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(m, whole) {
			t.Errorf("n=%d: merge of halves differs from the sketch of the whole", n)
		}
		again, err := Merge(m, a)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again, whole) {
			t.Errorf("n=%d: merging a part again changed the sketch", n)
		}
		self, _ := Merge(m, m)
		if !bytes.Equal(self, whole) {
			t.Errorf("n=%d: merging a sketch with itself changed it", n)
		}
	}
	if m, err := Merge(nil, nil); err != nil || m != nil {
		t.Fatalf("Merge(nil, nil) = %v, %v", m, err)
	}
}

// A stored sketch that is not one Of wrote is refused, never read.
func TestCorruptSketchesAreRefused(t *testing.T) {
	dense := Of(hashes(rand.New(rand.NewPCG(5, 6)), 1000))
	badRank := append([]byte(nil), dense...)
	badRank[7] = rankMax + 1
	for name, s := range map[string][]byte{
		"unknown kind":     {9, 1, 2},
		"sparse, ragged":   {kindSparse, 1, 2, 3},
		"sparse, too many": append([]byte{kindSparse}, make([]byte, 8*(SparseMax+1))...),
		"dense, short":     dense[:100],
		"dense, bad rank":  badRank,
	} {
		if _, err := Estimate(s); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: Estimate err %v", name, err)
		}
		if _, err := Merge(dense, s); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: Merge err %v", name, err)
		}
	}
}
