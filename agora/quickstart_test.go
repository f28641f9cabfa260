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
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestQuickStartBuildsAsAnExternalModule writes the README's quick start,
// unchanged, into a module of its own, runs the README's `go mod` steps
// there (the replace pointing at this directory), builds it with the go
// command, runs it, and sends it the Weather Protocol: what a developer
// following the README gets.
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
	_, steps, ok := strings.Cut(string(readme), "<!-- quickstart-steps -->\n```sh\n")
	steps, _, ok2 = strings.Cut(steps, "```\n")
	if !ok || !ok2 {
		t.Fatal("README.md has no quick start steps block")
	}
	port := regexp.MustCompile(`addr := "127\.0\.0\.1:(\d+)"`).FindStringSubmatch(block)
	if port == nil || !strings.Contains(steps, "curl -s 127.0.0.1:"+port[1]+"/") || strings.Contains(steps, ":8080") {
		t.Errorf("the steps' curl commands do not use the program's port %v (8080 is the registry's)", port)
	}
	here, _ := filepath.Abs(".")
	dir := t.TempDir()
	// Offline, the checksums a reader gets from sum.golang.org come from
	// this module's go.sum.
	sum, _ := os.ReadFile("go.sum")
	for name, body := range map[string][]byte{"main.go": []byte(block), "go.sum": sum} {
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The steps up to `go run`, the clone's path being this directory;
	// offline, so the dependencies come from the module cache.
	var script []string
	for _, l := range strings.Split(strings.ReplaceAll(steps, "\\\n", ""), "\n") {
		if strings.HasPrefix(l, "go mod ") {
			script = append(script, strings.ReplaceAll(l, "$HOME/src/registry/agora", here))
		}
	}
	bin := filepath.Join(dir, "weather")
	script = append(script, "go build -o "+bin+" .")
	for _, l := range script {
		cmd := exec.Command("sh", "-c", l)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOPROXY=off", "GOWORK=off", "GOFLAGS=-mod=mod")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("quick start step %q: %v\n%s\n(offline: the module cache needs every module of agora's graph; `go mod download all` in agora/ fetches them)", l, err, out)
		}
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
