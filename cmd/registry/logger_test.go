package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestLoggerAuto: "auto" logs JSON to what is not a terminal (a pipe, a
// file, a collector) and text where asked.
func TestLoggerAuto(t *testing.T) {
	var buf bytes.Buffer
	newLogger(&buf, "auto", "info").Info("hello", "k", "v")
	if json.Unmarshal(buf.Bytes(), &map[string]any{}) != nil {
		t.Errorf("auto to a buffer is not JSON: %q", buf.String())
	}
	f, err := os.CreateTemp(t.TempDir(), "log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if isTerminal(f) {
		t.Fatal("a file is taken for a terminal")
	}
	buf.Reset()
	newLogger(&buf, "text", "info").Info("hello", "k", "v")
	if !strings.HasPrefix(buf.String(), "time=") || !strings.Contains(buf.String(), "k=v") {
		t.Errorf("text: %q", buf.String())
	}
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		defer tty.Close()
		if !isTerminal(tty) {
			t.Error("/dev/tty is not taken for a terminal")
		}
	}
}
