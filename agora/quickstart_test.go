package agora

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestQuickStartBuildsAsAnExternalModule writes the README's quick start,
// unchanged, into a module of its own that requires this one through a
// replace directive, builds it with the go command, runs it, and sends it
// the Weather Protocol: what a developer following the README gets.
func TestQuickStartBuildsAsAnExternalModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program with the go command")
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(readme), "<!-- quickstart -->\n```go\n")
	block, _, ok2 := strings.Cut(block, "```\n<!-- /quickstart -->")
	if !ok || !ok2 {
		t.Fatal("README.md has no quick start block")
	}
	here, _ := filepath.Abs(".")
	dir := t.TempDir()
	sum, _ := os.ReadFile("go.sum")
	mod := "module example.com/weather\n\ngo 1.26\n\nrequire github.com/agora-registry/registry/agora v0.1.0\n\nreplace github.com/agora-registry/registry/agora => " + here + "\n"
	for name, body := range map[string][]byte{"main.go": []byte(block), "go.mod": []byte(mod), "go.sum": sum} {
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "weather")
	build := exec.Command("go", "build", "-mod=mod", "-o", bin, ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build of the quick start: %v\n%s", err, out)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	agent := exec.Command(bin, addr)
	agent.Dir = dir // its default cache directory lands here
	var logs bytes.Buffer
	agent.Stderr = &logs
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { agent.Process.Kill(); agent.Wait() })

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var wk WellKnownInfo
	for {
		if wk, err = FetchWellKnown(ctx, http.DefaultClient, "http://"+addr); err == nil {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the quick start agent never answered: %v\n%s", err, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(wk.Supported) != 1 {
		t.Fatalf("well-known: %+v", wk)
	}
	for d, sources := range wk.Supported {
		hash := d.Base64()
		reply, err := Send(ctx, http.DefaultClient, "http://"+addr, Outgoing{ProtocolHash: &hash, ProtocolSources: sources,
			Body: `{"location": "London, UK", "date": "2024-09-27"}`})
		if err != nil {
			t.Fatal(err)
		}
		var forecast map[string]any
		if reply.Status != StatusSuccess || json.Unmarshal([]byte(reply.Body), &forecast) != nil || forecast["weatherCondition"] != "rainy" {
			t.Fatalf("reply %+v\n%s", reply, logs.String())
		}
	}
}
