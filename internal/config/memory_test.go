package config

import "testing"

func TestGoMemoryLimitPrecedence(t *testing.T) {
	noEnv := func(string) string { return "" }
	withEnv := func(k string) string {
		if k == "GOMEMLIMIT" {
			return "200MiB"
		}
		return ""
	}
	for _, tc := range []struct {
		name  string
		args  []string
		env   func(string) string
		limit int64
		from  MemoryLimitSource
	}{
		{"default budget, PostgreSQL", []string{"--database-url", "postgres://db/registry"}, noEnv, 72 << 20, LimitFromBudget},
		{"default budget, SQLite keeps room for its C heap", nil, noEnv, 48 << 20, LimitFromBudget},
		{"a small budget still leaves the runtime half", []string{"--memory-budget", "40MiB"}, noEnv, 20 << 20, LimitFromBudget},
		{"the flag beats the budget", []string{"--memory-limit", "50MiB"}, noEnv, 50 << 20, LimitFromFlag},
		{"the flag beats GOMEMLIMIT", []string{"--memory-limit", "50MiB"}, withEnv, 50 << 20, LimitFromFlag},
		{"GOMEMLIMIT beats the budget and is left to the runtime", nil, withEnv, 0, LimitFromEnv},
		{"no budget, no limit", []string{"--memory-budget", "0"}, noEnv, 0, LimitNone},
	} {
		c, err := parseServe(t, tc.args, nil)
		if err != nil {
			t.Fatal(err)
		}
		limit, from := c.GoMemoryLimit(tc.env)
		if limit != tc.limit || from != tc.from {
			t.Errorf("%s: %d MiB from %s, want %d MiB from %s", tc.name, limit>>20, from, tc.limit>>20, tc.from)
		}
	}
}

// The default raw cache must fit the default budget with room to spare:
// it is live data the collector can never free.
func TestDefaultCacheFitsTheDefaultBudget(t *testing.T) {
	c, err := parseServe(t, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if limit, _ := c.GoMemoryLimit(func(string) string { return "" }); int64(c.CacheBytes) > limit/3 {
		t.Errorf("--cache-bytes %d MiB is more than a third of the default soft limit %d MiB", c.CacheBytes>>20, limit>>20)
	}
}
