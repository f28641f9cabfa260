package config

import (
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type fileTest struct {
	Path     string
	Addr     string
	Name     string
	Size     int
	List     []string
	Sections []struct {
		Hash string `yaml:"hash"`
	}
}

func (c *fileTest) options() []Option {
	return []Option{
		{Flag: "config", Env: "T_CONFIG", Value: File(&c.Path)},
		{Flag: "addr", Env: "T_ADDR", Key: "addr", Default: "127.0.0.1:1", Value: HostPort(&c.Addr)},
		{Flag: "name", Env: "T_NAME", Key: "name", Default: "dflt", Value: Text(&c.Name)},
		{Env: "T_SIZE", Key: "limits.size", Default: "1KiB", Value: Size(&c.Size, 0, 1<<30)},
		{Flag: "item", Env: "T_ITEMS", Key: "items", Value: List(&c.List)},
		{Key: "sections", Value: Section(&c.Sections)},
	}
}

func writeFile(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func parseFile(t *testing.T, args []string, env map[string]string) (*fileTest, error) {
	t.Helper()
	var c fileTest
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return &c, Parse(fs, c.options(), args, func(k string) string { return env[k] })
}

// Flags beat the environment, which beats the file, which beats the
// defaults; each layer leaves what it does not set.
func TestLayersApplyInOrder(t *testing.T) {
	path := writeFile(t, "addr: 127.0.0.1:2\nname: file\nlimits:\n  size: 4MiB\nitems: [a, b]\nsections:\n  - hash: h1\n")
	c, err := parseFile(t, []string{"--config", path, "--addr", "127.0.0.1:4"}, map[string]string{"T_ADDR": "127.0.0.1:3", "T_NAME": "env"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != "127.0.0.1:4" || c.Name != "env" || c.Size != 4<<20 || strings.Join(c.List, ",") != "a,b" || len(c.Sections) != 1 || c.Sections[0].Hash != "h1" || c.Path != path {
		t.Fatalf("layers: %+v", c)
	}
	// The file named by the environment; a repeated list flag keeps every item.
	c, err = parseFile(t, []string{"--item", "x", "--item", "y,z"}, map[string]string{"T_CONFIG": path})
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != "127.0.0.1:2" || c.Name != "file" || strings.Join(c.List, ",") != "x,y,z" {
		t.Fatalf("file from env, repeated flags: %+v", c)
	}
	c, err = parseFile(t, nil, nil)
	if err != nil || c.Addr != "127.0.0.1:1" || c.Size != 1<<10 || c.List != nil {
		t.Fatalf("defaults: %+v %v", c, err)
	}
}

// A bad file value is reported like a bad variable: the key, the value,
// the line and what is accepted; unknown keys and fields are refused.
func TestFileErrorsNameKeyValueAndWhatIsAccepted(t *testing.T) {
	for body, want := range map[string]string{
		"limits:\n  size: 4MB\n":           `invalid value "4MB" for limits.size in config file`,
		"addr: 8080\n":                     "want host:port",
		"limts:\n  size: 1\n":              `unknown key "limts"`,
		"limits:\n  sise: 1\n":             `unknown key "limits.sise"`,
		"name: [a, b]\n":                   "want a single value, not a list",
		"sections:\n  - hash: h\n    x: 1": "field x not found",
		"limits: 5\n":                      "limits must be a mapping",
	} {
		_, err := parseFile(t, []string{"--config", writeFile(t, body)}, nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err %v, want %q", body, err, want)
		}
	}
	_, err := parseFile(t, []string{"--config", writeFile(t, "\n\nlimits:\n  size: 4MB\n")}, nil)
	var fe *FileError
	if !errors.As(err, &fe) || fe.Line != 4 || fe.Key != "limits.size" || !strings.Contains(fe.Err.Error(), "KiB, MiB or GiB") {
		t.Errorf("FileError %+v", err)
	}
	if _, err := parseFile(t, []string{"--config", writeFile(t, "")}, nil); err != nil {
		t.Errorf("an empty file: %v", err)
	}
}
