package agent

import "testing"

// TestDescribeCoversApplyEnv fails when ApplyEnv reads a variable the
// option table (and so docs/configuration.md) does not list.
func TestDescribeCoversApplyEnv(t *testing.T) {
	described := map[string]bool{}
	for _, o := range Describe() {
		if o.Env != "" {
			described[o.Env] = true
		}
	}
	var read []string
	var c Config
	if err := c.ApplyEnv(func(name string) string { read = append(read, name); return "" }); err != nil {
		t.Fatal(err)
	}
	if len(read) == 0 {
		t.Fatal("ApplyEnv read no variable: the recording getenv is not used any more")
	}
	for _, name := range read {
		if !described[name] {
			t.Errorf("ApplyEnv reads %s but Describe does not list it", name)
		}
	}
}
