package config

import (
	"flag"
	"io"
	"strings"
	"testing"
	"time"
)

func parseServe(t *testing.T, args []string, env map[string]string) (*Serve, error) {
	t.Helper()
	var c Serve
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	err := Parse(fs, c.Options(), args, func(k string) string { return env[k] })
	return &c, err
}

func TestDefaults(t *testing.T) {
	c, err := parseServe(t, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != "127.0.0.1:8080" || c.DataDir != "./data" || c.DatabaseURL != "" || c.OpenPublish {
		t.Fatalf("defaults: %+v", c)
	}
	if c.MaxDocumentBytes != 1<<20 || c.CacheBytes != 8<<20 || c.MemoryBudget != 96<<20 || c.MemoryLimit != 0 || c.ReadHeaderTimeout != 5*time.Second {
		t.Fatalf("typed defaults: %+v", c)
	}
	if got := c.EffectivePublicURL(); got != "http://127.0.0.1:8080" {
		t.Fatalf("public URL %q", got)
	}
}

func TestFlagBeatsEnv(t *testing.T) {
	env := map[string]string{"REGISTRY_ADDR": ":9000", "REGISTRY_OPEN_PUBLISH": "true", "REGISTRY_UPSTREAMS": "http://a, http://b"}
	c, err := parseServe(t, []string{"--addr", "127.0.0.1:1"}, env)
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != "127.0.0.1:1" || !c.OpenPublish || len(c.Upstreams) != 2 || c.Upstreams[1] != "http://b" {
		t.Fatalf("%+v", c)
	}
}

func TestBadValuesAreClearErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--log-format", "xml"}, nil, "auto, json, text"},
		{nil, map[string]string{"REGISTRY_READ_TIMEOUT": "soon"}, "REGISTRY_READ_TIMEOUT"},
		{[]string{"--trusted-proxies", "10.0.0.0/33"}, nil, "CIDR"},
		{[]string{"--max-body-bytes", "-5"}, nil, "outside"},
	} {
		_, err := parseServe(t, tc.args, tc.env)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v %v: err %v, want mention of %q", tc.args, tc.env, err, tc.want)
		}
	}
}

func TestDescribeCoversContract(t *testing.T) {
	want := map[string]string{
		"addr": "REGISTRY_ADDR", "database-url": "REGISTRY_DATABASE_URL", "data-dir": "REGISTRY_DATA_DIR",
		"public-url": "REGISTRY_PUBLIC_URL", "open-publish": "REGISTRY_OPEN_PUBLISH", "no-examples": "REGISTRY_NO_EXAMPLES",
		"upstreams": "REGISTRY_UPSTREAMS", "trusted-proxies": "REGISTRY_TRUSTED_PROXIES",
	}
	got := map[string]string{}
	for _, o := range allOptions() {
		if o.Usage == "" {
			t.Errorf("--%s has no documentation", o.Flag)
		}
		got[o.Flag] = o.Env
	}
	for f, env := range want {
		if got[f] != env {
			t.Errorf("--%s: env %q, want %q", f, got[f], env)
		}
	}
	if !strings.Contains(Markdown((&Serve{}).Options()), "`--addr`") {
		t.Error("markdown table lacks --addr")
	}
}

func TestPublicURLDefaultNamesAReachableHost(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1:8080": "http://127.0.0.1:8080",
		":8080":          "http://localhost:8080",
		"0.0.0.0:9000":   "http://localhost:9000",
		"[::]:8080":      "http://localhost:8080",
		"[::1]:8080":     "http://[::1]:8080",
		"example.org:80": "http://example.org:80",
	} {
		c := Serve{Addr: addr}
		if got := c.EffectivePublicURL(); got != want {
			t.Errorf("addr %q: public URL %q, want %q", addr, got, want)
		}
	}
}

func TestLoopbackUnlimitedOnlyWithoutProxies(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{nil, true},
		{[]string{"--rate-limit-loopback"}, false},
		{[]string{"--trusted-proxies", "127.0.0.1"}, false},
	} {
		c, err := parseServe(t, tc.args, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.LoopbackUnlimited(); got != tc.want || c.RateLimitIPv6Prefix != 64 {
			t.Errorf("%v: LoopbackUnlimited %v (want %v), IPv6 prefix %d", tc.args, got, tc.want, c.RateLimitIPv6Prefix)
		}
	}
}
