package fault

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/testing/registryproc"
)

// EnvFaults switches the fault and load tests on.
const EnvFaults = "REGISTRY_TEST_FAULTS"

// binary is the registry built once for this package (empty when the tests
// are switched off).
var binary string

func TestMain(m *testing.M) {
	if os.Getenv(EnvFaults) != "1" {
		fmt.Fprintf(os.Stderr, "SKIPPING FAULT AND LOAD TESTS: set %s=1 (they restart the local PostgreSQL cluster; run them in their own `go test -p 1` invocation)\n", EnvFaults)
		os.Exit(m.Run()) // every test skips itself
	}
	dir, err := os.MkdirTemp("", "registry-fault-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if binary, err = registryproc.Build(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// requireFaults skips a test unless the fault tests are switched on.
func requireFaults(t *testing.T) {
	t.Helper()
	if binary == "" {
		t.Skipf("fault/load test: set %s=1 to run it", EnvFaults)
	}
	if runtime.GOOS != "linux" {
		t.Skip("fault tests read /proc and drive pg_ctlcluster: Linux only")
	}
}

// serverArgs are the flags every test server gets: loopback only, open
// publishing and no rate limits (the load comes from one client address).
var serverArgs = []string{
	"--open-publish", "--no-examples", "--rate-limit", "0", "--publish-rate-limit", "0",
}

// startServer runs `registry serve` with serverArgs and the given extra
// flags and waits until it listens. The process is killed when the test ends.
func startServer(t *testing.T, args ...string) *registryproc.Process {
	t.Helper()
	return registryproc.Start(t, binary, append(append([]string{}, serverArgs...), args...), registryproc.Options{
		// Keep the log short: a load logs a line per request, and only the
		// failed ones are worth keeping.
		Keep: func(line []byte) bool {
			return !bytes.Contains(line, []byte(`"msg":"request"`)) || bytes.Contains(line, []byte(`"status":5`))
		},
	})
}

// waitReady polls /readyz until it answers 200 or the deadline passes.
func waitReady(ctx context.Context, c *client, base string) error {
	for {
		st, _, _, err := c.do(ctx, "GET", base+"/readyz", "", nil)
		if err == nil && st == 200 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("not ready (last status %d, err %v): %w", st, err, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}
