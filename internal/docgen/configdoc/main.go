// Command configdoc writes docs/configuration.md from the code's option
// tables: go run ./internal/docgen/configdoc docs/configuration.md
package main

import (
	"fmt"
	"os"

	"github.com/agora-registry/registry/internal/docgen"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: configdoc OUTPUT.md")
		os.Exit(2)
	}
	if err := os.WriteFile(os.Args[1], []byte(docgen.Configuration()), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "configdoc:", err)
		os.Exit(1)
	}
}
