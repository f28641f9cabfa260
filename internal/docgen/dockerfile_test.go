package docgen

import (
	"bufio"
	"debug/elf"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// No container engine runs in CI, so the image's build stage is proven by
// replaying it: its COPY instructions copy exactly what they name from the
// build context (the tree less .dockerignore) into an empty directory that
// stands for the container's root, and its RUN commands run there, with
// absolute paths moved under that directory. What the final stage copies
// from the build stage, runs as its entrypoint and health check must then
// exist and be static binaries.

// instruction is one Dockerfile line after continuations are joined.
type instruction struct {
	Op   string // upper case: FROM, COPY, RUN, …
	Args string
}

func readDockerfile(t *testing.T, path string) []instruction {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []instruction
	var cur strings.Builder
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if cur.Len() == 0 && (line == "" || strings.HasPrefix(line, "#")) {
			continue
		}
		if strings.HasPrefix(line, "#") { // a comment inside a continued instruction
			continue
		}
		if strings.HasSuffix(line, "\\") {
			cur.WriteString(strings.TrimSuffix(line, "\\") + " ")
			continue
		}
		cur.WriteString(line)
		op, args, _ := strings.Cut(cur.String(), " ")
		out = append(out, instruction{strings.ToUpper(op), strings.TrimSpace(args)})
		cur.Reset()
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// dockerignored reports whether the context path rel (slash-separated) is
// left out by one of .dockerignore's patterns (the forms this repository's
// file uses: names, paths and globs, a leading / ignored).
func dockerignored(patterns []string, rel string) bool {
	for _, p := range patterns {
		p = strings.TrimPrefix(p, "/")
		for prefix := rel; ; {
			if ok, _ := filepath.Match(p, prefix); ok {
				return true
			}
			i := strings.LastIndex(prefix, "/")
			if i < 0 {
				break
			}
			prefix = prefix[:i]
		}
		// A pattern without a slash also matches a base name anywhere, as
		// Docker's own file did before it followed Go's filepath.Match;
		// being stricter here only copies less.
	}
	return false
}

func readDockerignore(t *testing.T, root string) []string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, ".dockerignore"))
	if err != nil {
		t.Fatal(err)
	}
	var pats []string
	for _, l := range strings.Split(string(raw), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			if strings.HasPrefix(l, "!") {
				t.Fatalf(".dockerignore exception %q: the replay does not model exceptions", l)
			}
			pats = append(pats, l)
		}
	}
	return pats
}

// copyContext copies src (a context path, file or directory) to dst, as
// COPY does, leaving out ignored paths.
func copyContext(t *testing.T, root string, ignore []string, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(filepath.Join(root, src), func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if rel != "." && dockerignored(ignore, rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		inSrc, _ := filepath.Rel(filepath.Join(root, src), path)
		target := filepath.Join(dst, inSrc)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type().IsRegular():
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			in, err := os.Open(path)
			if err != nil {
				return err
			}
			defer in.Close()
			out, err := os.Create(target)
			if err != nil {
				return err
			}
			if _, err := io.Copy(out, in); err != nil {
				out.Close()
				return err
			}
			return out.Close()
		}
		return nil
	})
	if err != nil {
		t.Fatalf("COPY %s: %v", src, err)
	}
}

// absPath matches an absolute path in a RUN command (after a space, an =
// or the start), which the replay moves under its root.
var absPath = regexp.MustCompile(`(^|[\s=])/([A-Za-z0-9_.-]+)`)

func TestDockerfileBuildStageReplays(t *testing.T) {
	if testing.Short() {
		t.Skip("builds both binaries from a copy of the context: not in -short")
	}
	repo := moduleRoot(t)
	ins := readDockerfile(t, filepath.Join(repo, "Dockerfile"))
	ignore := readDockerignore(t, repo)
	root := t.TempDir() // the build container's "/"
	workdir := root
	args := map[string]string{}
	stage, stages := "", 0
	var final []instruction
	for _, in := range ins {
		if in.Op == "FROM" {
			stages++
			f := strings.Fields(in.Args)
			stage = ""
			if len(f) == 3 && strings.EqualFold(f[1], "AS") {
				stage = f[2]
			}
			continue
		}
		if stages != 1 {
			final = append(final, in)
			continue
		}
		switch in.Op {
		case "ARG":
			name, def, _ := strings.Cut(in.Args, "=")
			args[name] = strings.Trim(def, `"`)
		case "WORKDIR":
			workdir = filepath.Join(root, in.Args)
			if err := os.MkdirAll(workdir, 0o755); err != nil {
				t.Fatal(err)
			}
		case "COPY":
			f := strings.Fields(in.Args)
			if strings.HasPrefix(f[0], "--") {
				t.Fatalf("build stage COPY %s: flags are not replayed", in.Args)
			}
			dst := f[len(f)-1]
			if !filepath.IsAbs(dst) {
				dst = filepath.Join(workdir, dst)
			} else {
				dst = filepath.Join(root, dst)
			}
			for _, src := range f[:len(f)-1] {
				target := dst
				if st, err := os.Stat(filepath.Join(repo, src)); err == nil && !st.IsDir() && (strings.HasSuffix(f[len(f)-1], "/") || len(f) > 2) {
					target = filepath.Join(dst, filepath.Base(src))
				} else if err != nil {
					t.Fatalf("COPY %s: %v (the context has no such file)", src, err)
				}
				copyContext(t, repo, ignore, src, target)
			}
		case "RUN":
			cmdline := os.Expand(in.Args, func(k string) string { return args[k] })
			cmdline = absPath.ReplaceAllString(cmdline, "${1}"+root+"/${2}")
			t.Logf("RUN %s", cmdline)
			cmd := exec.Command("sh", "-c", cmdline)
			cmd.Dir = workdir
			// The module cache and build cache are the machine's (offline
			// where they hold everything); the rest is the stage's.
			cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("build stage %q: RUN %s: %v\n%s", stage, in.Args, err, out)
			}
		case "ENV", "LABEL":
		default:
			t.Fatalf("build stage instruction %s is not replayed: teach this test", in.Op)
		}
	}
	if stages != 2 {
		t.Fatalf("the Dockerfile has %d stages; this test replays a build stage and checks one final stage", stages)
	}
	// The final stage takes only what the build stage made, and runs it.
	for _, in := range final {
		f := strings.Fields(in.Args)
		switch {
		case in.Op == "COPY" && strings.HasPrefix(f[0], "--from="):
			srcs := f[1 : len(f)-1]
			if strings.HasPrefix(srcs[0], "--") {
				srcs = srcs[1:]
			}
			for _, src := range srcs {
				if _, err := os.Stat(filepath.Join(root, src)); err != nil {
					t.Errorf("the final stage copies %s, which the build stage did not make", src)
				}
			}
		case in.Op == "ENTRYPOINT" || in.Op == "HEALTHCHECK":
			for _, bin := range regexp.MustCompile(`/usr/local/bin/(\w+)`).FindAllStringSubmatch(in.Args, -1) {
				checkStatic(t, filepath.Join(root, "out", bin[1]))
			}
		}
	}
}

// checkStatic fails unless path is an ELF executable with no program
// interpreter: the final image is distroless/static, without a libc.
func checkStatic(t *testing.T, path string) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Errorf("%s: %v", path, err)
		return
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("%s is dynamically linked; the image has no libc", path)
		}
	}
}

func TestDockerignoreMatches(t *testing.T) {
	pats := []string{".git", "data", "/bin", "*.test", "docs/screenshots"}
	for rel, want := range map[string]bool{
		".git/config": true, "data": true, "internal/data.go": false, "bin/x": true,
		"x.test": true, "docs/screenshots/a.png": true, "docs/a.md": false, "go.mod": false,
	} {
		if got := dockerignored(pats, rel); got != want {
			t.Errorf("dockerignored(%q) = %v, want %v", rel, got, want)
		}
	}
}
