package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/agora-registry/registry/agora"
)

func wellknown(args []string) error {
	fs := flag.NewFlagSet("wellknown", flag.ContinueOnError)
	timeout := fs.Duration("timeout", 30*time.Second, "give up after this long")
	if err := fs.Parse(args); err != nil {
		return exitCode(2)
	}
	if fs.NArg() != 1 {
		return errors.New("usage: agent wellknown URL")
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	wk, err := agora.FetchWellKnown(ctx, &http.Client{Timeout: *timeout}, fs.Arg(0))
	if err != nil {
		return err
	}
	fmt.Println("read from", printable(wk.URL))
	if len(wk.Meta) > 0 {
		var meta any
		if json.Unmarshal(wk.Meta, &meta) == nil {
			b, _ := json.MarshalIndent(meta, "  ", "  ")
			fmt.Printf("meta:\n  %s\n", printable(string(b)))
		}
	}
	var hexes []string
	for d, sources := range wk.Supported {
		hexes = append(hexes, d.Hex()+"  "+d.Base64()+"\n    "+strings.Join(sources, "\n    "))
	}
	sort.Strings(hexes)
	fmt.Printf("supported (%d):\n", len(hexes))
	for _, h := range hexes {
		fmt.Println("  " + printable(h))
	}
	var un []string
	for d := range wk.Unsupported {
		un = append(un, d.Hex())
	}
	sort.Strings(un)
	fmt.Printf("explicitly unsupported (%d):\n", len(un))
	for _, h := range un {
		fmt.Println("  " + h)
	}
	_ = os.Stdout.Sync()
	return nil
}

func splitEnvList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// printable replaces control characters (other than the newlines this
// command writes) in what a stranger's agent sent, so its strings cannot
// drive the terminal (escape sequences).
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r != '\n' && unicode.IsControl(r) {
			return '\uFFFD'
		}
		return r
	}, s)
}
