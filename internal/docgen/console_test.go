package docgen

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/testing/registryproc"
)

// consoleStep is one `$ command` of a ```console block and the output the
// document shows under it.
type consoleStep struct {
	line      int // of the command in the document, for messages
	cmd, want string
}

// heredoc matches the start of a here-document (<<'END' or <<END).
var heredoc = regexp.MustCompile(`<<-?'?([A-Za-z_]+)'?`)

// consoleSteps reads every ```console block of a Markdown document. A
// command goes on over lines ending in a backslash and over a
// here-document's body; what follows, up to the next `$ `, is its output.
func consoleSteps(doc string) []consoleStep {
	var steps []consoleStep
	lines := strings.Split(doc, "\n")
	in := false
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case !in:
			in = strings.TrimSpace(l) == "```console"
		case strings.TrimSpace(l) == "```":
			in = false
		case strings.HasPrefix(l, "$ "):
			s := consoleStep{line: i + 1, cmd: strings.TrimPrefix(l, "$ ")}
			for strings.HasSuffix(lines[i], `\`) && i+1 < len(lines) {
				i++
				s.cmd += "\n" + lines[i]
			}
			if m := heredoc.FindStringSubmatch(s.cmd); m != nil {
				for i+1 < len(lines) {
					i++
					s.cmd += "\n" + lines[i]
					if lines[i] == m[1] {
						break
					}
				}
			}
			steps = append(steps, s)
		case len(steps) > 0:
			steps[len(steps)-1].want += l + "\n"
		}
	}
	return steps
}

// requestID matches the ids the registry gives requests ("ec89a547c638-5").
var requestID = regexp.MustCompile(`\b[0-9a-f]{12}-[0-9]+\b`)

// TestReadmeConsoleBlocksAreReal runs every ```console block of README.md,
// in order and in one shell, against a fresh registry (the README's first
// command), and compares what each command prints with what the README
// shows. Only what must vary is normalised: the server's port and request
// ids. So the tour cannot drift from the code.
func TestReadmeConsoleBlocksAreReal(t *testing.T) {
	for _, tool := range []string{"bash", "curl", "jq", "sha1sum"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("SKIP: the README tour needs %s, which is not installed", tool)
		}
	}
	raw, err := os.ReadFile(filepath.Join(moduleRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	steps := consoleSteps(string(raw))
	if len(steps) < 10 {
		t.Fatalf("README.md has %d console commands; the parser or the README changed", len(steps))
	}
	bin, err := registryproc.Build(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir() // the reader's clone: ./data is the registry's store
	srv := registryproc.Start(t, bin, []string{"--data-dir", filepath.Join(work, "data")}, registryproc.Options{})
	const readmeURL = "http://127.0.0.1:8080"

	// One script, a marker after each command, so variables carry over
	// from block to block as in the reader's terminal.
	const marker = "@@console-step-done@@"
	var script strings.Builder
	script.WriteString("exec 2>&1\n")
	for _, s := range steps {
		cmd := strings.ReplaceAll(s.cmd, "go run ./cmd/registry", `"$REGISTRY_BIN"`)
		cmd = strings.ReplaceAll(cmd, readmeURL, srv.URL)
		fmt.Fprintf(&script, "%s\nprintf '\\n%s\\n'\n", cmd, marker)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sh := exec.CommandContext(ctx, "bash", "-c", script.String())
	sh.Dir = work
	sh.Env = []string{"REGISTRY_BIN=" + bin, "REGISTRY_SERVER=" + srv.URL, "HOME=" + work}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "REGISTRY_") && !strings.HasPrefix(kv, "AGENT_") && !strings.HasPrefix(kv, "HOME=") {
			sh.Env = append(sh.Env, kv)
		}
	}
	var out bytes.Buffer
	sh.Stdout, sh.Stderr = &out, &out
	if err := sh.Run(); err != nil {
		t.Fatalf("the tour's shell: %v\n%s", err, out.String())
	}
	got := strings.Split(out.String(), "\n"+marker+"\n")
	if len(got) != len(steps)+1 {
		t.Fatalf("%d outputs for %d commands:\n%s", len(got)-1, len(steps), out.String())
	}
	normal := func(s string) string {
		s = strings.ReplaceAll(s, strings.TrimPrefix(srv.URL, "http://"), strings.TrimPrefix(readmeURL, "http://"))
		s = requestID.ReplaceAllString(s, "REQUEST-ID")
		s = strings.ReplaceAll(s, "\r\n", "\n") // HTTP headers, as a terminal shows them
		return strings.TrimRight(s, "\n")
	}
	for i, s := range steps {
		if g, w := normal(got[i]), normal(s.want); g != w {
			t.Errorf("README.md:%d: $ %s\nprints:\n%s\nthe README shows:\n%s", s.line, s.cmd, g, w)
		}
	}
}
