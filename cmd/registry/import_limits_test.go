package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestImportDocumentLimitIsServesOption: import reads --max-document-bytes
// and REGISTRY_MAX_DOCUMENT_BYTES as serve does, sizes with units included.
func TestImportDocumentLimitIsServesOption(t *testing.T) {
	docs := filepath.Join(t.TempDir(), "docs")
	writeDoc(t, filepath.Join(docs, "big.md"), "# Big\n\n"+strings.Repeat("forecast ", 300)+"\n") // 2.7 KiB
	for _, tc := range []struct {
		name    string
		env     []string
		args    []string
		code    int
		summary string
	}{
		{"flag with a unit", nil, []string{"--max-document-bytes", "4MiB"}, 0, "1 new, 0 existing, 0 withdrawn, 0 failed"},
		{"flag below the size", nil, []string{"--max-document-bytes", "2KiB"}, 1, "0 new, 0 existing, 0 withdrawn, 1 failed"},
		{"environment below the size", []string{"REGISTRY_MAX_DOCUMENT_BYTES=2KiB"}, nil, 1, "0 new, 0 existing, 0 withdrawn, 1 failed"},
		{"flag beats environment", []string{"REGISTRY_MAX_DOCUMENT_BYTES=2KiB"}, []string{"--max-document-bytes", "3KiB"}, 0, "1 new"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"import", "--data-dir", t.TempDir()}, tc.args...)
			out, errOut, err := runCLI(t, tc.env, nil, append(args, docs)...)
			if exitCode(err) != tc.code || !strings.Contains(out, tc.summary) {
				t.Fatalf("exit %d (want %d)\nstdout %s\nstderr %s", exitCode(err), tc.code, out, errOut)
			}
		})
	}
}
