package follow

import (
	"testing"

	"github.com/agora-registry/registry/agora"
)

func TestBatchOfBoundsBytes(t *testing.T) {
	rec := func(size int) agora.LogRecord { return agora.LogRecord{Size: size} }
	for _, c := range []struct {
		sizes []int
		want  int
	}{
		{[]int{1, 2, 3}, 3},
		{[]int{maxBatchBytes + 1, 1}, 1}, // one document always goes
		{[]int{maxBatchBytes / 2, maxBatchBytes / 2, 1}, 2},
		{[]int{maxBatchBytes/2 + 1, maxBatchBytes / 2, 1}, 1},
	} {
		var rs []agora.LogRecord
		for _, s := range c.sizes {
			rs = append(rs, rec(s))
		}
		if got := batchOf(rs); got != c.want {
			t.Errorf("batchOf(%v) = %d, want %d", c.sizes, got, c.want)
		}
	}
}
