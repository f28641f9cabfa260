package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"

	"github.com/agora-registry/registry/internal/client"
	"github.com/agora-registry/registry/internal/plural"
)

func init() {
	register(command{name: "publish", summary: "publish FILE... to a registry (--server, token in REGISTRY_TOKEN)", synopsis: "registry publish [--server URL] FILE... (the token comes from REGISTRY_TOKEN)", run: publishCmd})
}

// publishCmd sends each file's exact bytes; "-" reads stdin. It prints one
// line per document: created|exists, hex, base64, title.
func publishCmd(ctx context.Context, env *environment, args []string) error {
	cfg, files, err := clientConfig(env, "publish", args)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		fmt.Fprintln(env.stderr, "usage: "+program.Synopsis("publish"))
		return errUsage
	}
	c, err := newClient(cfg)
	if err != nil {
		return err
	}
	failed := 0
	for _, f := range files {
		if err := publishFile(ctx, env, c, f); err != nil {
			fmt.Fprintf(env.stderr, "%s: %v\n", f, err)
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %s not published", failed, plural.Of(len(files), "document"))
	}
	return nil
}

func publishFile(ctx context.Context, env *environment, c *client.Client, name string) error {
	var content []byte
	var err error
	if name == "-" {
		content, err = io.ReadAll(io.LimitReader(env.stdin, maxClientResponse))
	} else {
		content, err = os.ReadFile(name)
	}
	if err != nil {
		return err
	}
	out, err := c.Publish(ctx, content)
	if err != nil {
		return explainTokenError(err, c.Token, "publish")
	}
	state := "exists"
	if out.Created {
		state = "created"
	}
	fmt.Fprintf(env.stdout, "%s %s %s %s\n", state, out.Hex, out.Base64, out.Title)
	if !out.Created {
		fmt.Fprintf(env.stderr, "%s: stored already, first published by %s; nothing changed\n", name, out.Publisher)
	}
	for _, l := range out.Lints {
		fmt.Fprintf(env.stderr, "%s: lint %s: %s\n", name, l.Code, l.Message)
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
