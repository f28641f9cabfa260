package plural

import "testing"

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "0 entries"}, {1, "1 entry"}, {2, "2 entries"}, {1000, "1000 entries"}} {
		if got := Count(tc.n, "entry", "entries"); got != tc.want {
			t.Errorf("Count(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
	if got := Of(1, "protocol"); got != "1 protocol" {
		t.Errorf("Of(1) = %q", got)
	}
	if got := Of(3, "protocol"); got != "3 protocols" {
		t.Errorf("Of(3) = %q", got)
	}
}
