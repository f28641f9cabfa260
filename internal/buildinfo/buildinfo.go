// Package buildinfo is the build stamp both binaries print for `version`.
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// stamp is set at build time, for both binaries at once:
//
//	go build -ldflags "-X github.com/agora-registry/registry/internal/buildinfo.stamp=v1.2.3" ./cmd/...
var stamp = ""

// Version is the stamp when one was set, else what the Go toolchain
// recorded: module version, VCS revision (+dirty) and Go version.
func Version() string {
	if stamp != "" {
		return stamp
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	return recorded(info)
}

func recorded(info *debug.BuildInfo) string {
	parts := []string{info.Main.Version}
	if parts[0] == "" {
		parts[0] = "(devel)"
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev != "" {
		parts = append(parts, rev[:min(len(rev), 12)]+dirty)
	}
	return strings.Join(append(parts, info.GoVersion), " ")
}
