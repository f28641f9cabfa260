package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"unicode"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/agent"
	"github.com/agora-registry/registry/internal/cli"
)

func init() {
	register(cli.Command{Name: "wellknown", Summary: "show what an agent supports", Synopsis: "agent wellknown [--timeout D] URL", Run: wellknown})
}

func wellknown(ctx context.Context, std *cli.IO, args []string) error {
	var cfg agent.WellknownConfig
	fs, err := parse(std, "wellknown", cfg.Options(), args)
	if err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(std.Stderr, "usage: "+program.Synopsis("wellknown"))
		return cli.ErrUsage
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	wk, err := agora.FetchWellKnown(ctx, &http.Client{Timeout: cfg.Timeout}, fs.Arg(0))
	if err != nil {
		return err
	}
	fmt.Fprintln(std.Stdout, "read from", printable(wk.URL))
	if len(wk.Meta) > 0 {
		var meta any
		if json.Unmarshal(wk.Meta, &meta) == nil {
			b, _ := json.MarshalIndent(meta, "  ", "  ")
			fmt.Fprintf(std.Stdout, "meta:\n  %s\n", printable(string(b)))
		}
	}
	var hexes []string
	for d, sources := range wk.Supported {
		hexes = append(hexes, d.Hex()+"  "+d.Base64()+"\n    "+strings.Join(sources, "\n    "))
	}
	sort.Strings(hexes)
	fmt.Fprintf(std.Stdout, "supported (%d):\n", len(hexes))
	for _, h := range hexes {
		fmt.Fprintln(std.Stdout, "  "+printable(h))
	}
	var un []string
	for d := range wk.Unsupported {
		un = append(un, d.Hex())
	}
	sort.Strings(un)
	fmt.Fprintf(std.Stdout, "explicitly unsupported (%d):\n", len(un))
	for _, h := range un {
		fmt.Fprintln(std.Stdout, "  "+h)
	}
	return nil
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
