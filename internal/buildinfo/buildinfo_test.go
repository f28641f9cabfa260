package buildinfo

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestRecordedNamesRevisionAndGo(t *testing.T) {
	info := &debug.BuildInfo{GoVersion: "go1.26.8", Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}}}
	if got, want := recorded(info), "(devel) 0123456789ab+dirty go1.26.8"; got != want {
		t.Fatalf("recorded = %q, want %q", got, want)
	}
	info = &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.3"}}
	if got, want := recorded(info), "v1.2.3 go1.26.8"; got != want {
		t.Fatalf("recorded = %q, want %q", got, want)
	}
}

func TestUnstampedVersionIsTheToolchains(t *testing.T) {
	if got := Version(); !strings.HasSuffix(got, runtime.Version()) {
		t.Fatalf("Version() = %q, want the toolchain's record ending in %s", got, runtime.Version())
	}
}

// TestOneStampForBothBinaries builds both binaries the way the Dockerfile
// does, one -X flag for both, and asks each for its version.
func TestOneStampForBothBinaries(t *testing.T) {
	if testing.Short() {
		t.Skip("builds both binaries")
	}
	const want = "v9.8.7-test"
	dir := t.TempDir()
	ldflags := "-X github.com/agora-registry/registry/internal/buildinfo.stamp=" + want
	for _, name := range []string{"registry", "agent"} {
		build := exec.Command("go", "build", "-ldflags", ldflags, "-o", filepath.Join(dir, name), "github.com/agora-registry/registry/cmd/"+name)
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", name, err, out)
		}
	}
	for _, args := range [][]string{{"registry", "version"}, {"registry", "--version"}, {"agent", "version"}, {"agent", "--version"}} {
		out, err := exec.Command(filepath.Join(dir, args[0]), args[1:]...).CombinedOutput()
		if got := strings.TrimSpace(string(out)); err != nil || got != args[0]+" "+want {
			t.Errorf("%s: %q (%v), want %q", strings.Join(args, " "), got, err, args[0]+" "+want)
		}
	}
}
