package main

import (
	"context"
	"fmt"
	"runtime/debug"
)

// version is set at build time (-ldflags "-X main.version=v1.2.3"); when it
// is not, the module version and VCS revision Go records are used.
var version = ""

func init() {
	register(command{name: "version", summary: "print the build version", run: versionCmd})
}

func versionCmd(_ context.Context, env *environment, args []string) error {
	if len(args) > 0 {
		fmt.Fprintln(env.stderr, "usage: registry version")
		return errUsage
	}
	fmt.Fprintln(env.stdout, "registry", buildVersion())
	return nil
}

// buildVersion is the -X version, else what the Go toolchain recorded.
func buildVersion() string {
	if version != "" {
		return version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = "+dirty"
			}
		}
	}
	if rev != "" && len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" {
		v += " " + rev + modified
	}
	return v + " " + info.GoVersion
}
