package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"

	"github.com/agora-registry/registry/internal/client"
	"github.com/agora-registry/registry/internal/config"
	"github.com/agora-registry/registry/internal/plural"
	"github.com/agora-registry/registry/internal/protocol"
)

func init() {
	register(command{Name: "publish", Summary: "publish FILE... to a registry (--server, token in REGISTRY_TOKEN; --dry-run stores nothing)", Synopsis: "registry publish [--server URL] [--dry-run] [--force] FILE... (the token comes from REGISTRY_TOKEN)", Run: publishCmd})
}

// publishCmd sends each file's exact bytes; "-" reads stdin. It prints one
// line per document: created|exists (would-create|would-exist with
// --dry-run), hex, base64, title.
func publishCmd(ctx context.Context, env *environment, args []string) error {
	var cfg config.Publish
	fs := flagSet(env, "publish")
	if err := parseFlags(env, fs, cfg.Options(), args); err != nil {
		return err
	}
	cfg.Token = env.Getenv("REGISTRY_TOKEN")
	files := fs.Args()
	if len(files) == 0 {
		fmt.Fprintln(env.Stderr, "usage: "+program.Synopsis("publish"))
		return errUsage
	}
	c, err := newClient(cfg.Client)
	if err != nil {
		return err
	}
	failed := 0
	for _, f := range files {
		if err := publishFile(ctx, env, c, cfg, f); err != nil {
			fmt.Fprintf(env.Stderr, "%s: %v\n", f, err)
			failed++
		}
	}
	if failed > 0 {
		verb := "published"
		if cfg.DryRun {
			verb = "checked"
		}
		return fmt.Errorf("%d of %s not %s", failed, plural.Of(len(files), "document"), verb)
	}
	return nil
}

// errSDKUnreadable refuses, before anything is sent, a document agents
// built with the Python SDK could not read: publishing cannot be undone.
var errSDKUnreadable = errors.New("the Python SDK cannot read this document's metadata")

func publishFile(ctx context.Context, env *environment, c *client.Client, cfg config.Publish, name string) error {
	var content []byte
	var err error
	if name == "-" {
		content, err = io.ReadAll(io.LimitReader(env.Stdin, maxClientResponse))
	} else {
		content, err = os.ReadFile(name)
	}
	if err != nil {
		return err
	}
	if !cfg.DryRun && !cfg.Force {
		if doc, err := protocol.Prepare(content, len(content)+1); err == nil && !doc.Metadata.FrontMatter {
			for _, l := range doc.Lints {
				fmt.Fprintf(env.Stderr, "%s: lint %s: %s\n", name, l.Code, l.Message)
			}
			return fmt.Errorf("%w: start it with a front-matter block (---, name: …, description: …, ---), check it with --dry-run, or publish it as it is with --force", errSDKUnreadable)
		}
	}
	publish, states := c.Publish, [2]string{"exists", "created"}
	if cfg.DryRun {
		publish, states = c.DryRun, [2]string{"would-exist", "would-create"}
	}
	out, err := publish(ctx, content)
	if err != nil {
		return explainTokenError(err, c.Token, "publish")
	}
	state := states[0]
	if out.Created {
		state = states[1]
	}
	fmt.Fprintf(env.Stdout, "%s %s %s %s\n", state, out.Hex, out.Base64, out.Title)
	if !out.Created {
		verb := "nothing changed"
		if cfg.DryRun {
			verb = "publishing it would change nothing"
		}
		fmt.Fprintf(env.Stderr, "%s: stored already, first published by %s; %s\n", name, out.Publisher, verb)
	}
	if cfg.DryRun && !out.SDKCompatible {
		fmt.Fprintf(env.Stderr, "%s: the Python SDK cannot read this document's metadata; publish would refuse it without --force\n", name)
	}
	for _, l := range out.Lints {
		fmt.Fprintf(env.Stderr, "%s: lint %s: %s\n", name, l.Code, l.Message)
	}
	return nil
}

// explainTokenError adds where the token comes from to a 401 answered to a
// client that sent none.
func explainTokenError(err error, token, scope string) error {
	var refused *client.Error
	if errors.As(err, &refused) && refused.Status == http.StatusUnauthorized && token == "" {
		return fmt.Errorf("%w; set REGISTRY_TOKEN to an API token with the %s scope (registry token create --name NAME --scope %s)", err, scope, scope)
	}
	return err
}
