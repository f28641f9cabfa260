package store

import (
	"slices"
	"strings"
	"testing"
)

func TestNaturalKey(t *testing.T) {
	for title, want := range map[string]string{
		"Weather v2":  "weather v0012",
		"Weather v10": "weather v00210",
		"v007":        "v0017",
		"v0":          "v0010",
		"Ünïcode 3a":  "ünïcode 0013a",
		"":            "",
	} {
		if got := NaturalKey(title); got != want {
			t.Errorf("NaturalKey(%q) = %q, want %q", title, got, want)
		}
	}
	titles := []string{"v10", "v9", "V2", "v1.10", "v1.9", "v", "v100", "va"}
	slices.SortFunc(titles, func(a, b string) int { return strings.Compare(NaturalKey(a), NaturalKey(b)) })
	if want := []string{"v", "v1.9", "v1.10", "V2", "v9", "v10", "v100", "va"}; !slices.Equal(titles, want) {
		t.Fatalf("natural order %q, want %q", titles, want)
	}
}

func TestAdoptionLevel(t *testing.T) {
	for score, want := range map[int64]int{0: 0, 1: 0, 15: 0, 16: 1, 31: 1, 32: 2, 63: 2, 64: 3, 1023: 6, 1024: 7, 1 << 40: MaxAdoptionLevel} {
		if got := AdoptionLevel(score); got != want {
			t.Errorf("AdoptionLevel(%d) = %d, want %d", score, got, want)
		}
	}
}
