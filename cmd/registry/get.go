package main

import (
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/agora-registry/registry/internal/protocol"
)

func init() {
	register(command{name: "get", summary: "get HASH: print a document's exact bytes, verified against the hash", synopsis: "registry get [--server URL] HASH", run: getCmd})
}

func getCmd(ctx context.Context, env *environment, args []string) error {
	cfg, rest, err := clientConfig(env, "get", args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		fmt.Fprintln(env.stderr, "usage: "+commands["get"].synopsis)
		return errUsage
	}
	d, err := protocol.ParseDigest(rest[0])
	if err != nil {
		return err
	}
	c := newClient(cfg)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/protocol/"+d.Hex(), nil)
	if err != nil {
		return err
	}
	res, err := c.do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return problemError(res)
	}
	content, err := io.ReadAll(io.LimitReader(res.Body, maxClientResponse+1))
	if err != nil {
		return err
	}
	if len(content) > maxClientResponse {
		return fmt.Errorf("the document is larger than %d bytes", maxClientResponse)
	}
	// Never print bytes that are not the requested document.
	if err := protocol.Verify(content, d); err != nil {
		return fmt.Errorf("the registry answered a different document: %w", err)
	}
	_, err = env.stdout.Write(content)
	return err
}
