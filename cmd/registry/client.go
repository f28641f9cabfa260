package main

import (
	"encoding/json"
	"time"

	"github.com/agora-registry/registry/internal/client"
	"github.com/agora-registry/registry/internal/config"
	"github.com/agora-registry/registry/internal/protocol"
)

// Limits of the client commands.
const (
	clientTimeout     = 60 * time.Second
	clientRedirects   = 3
	maxClientResponse = 2 * protocol.DefaultMaxDocumentBytes
)

// newClient is the API client of publish and get.
func newClient(cfg config.Client) (*client.Client, error) {
	c, err := client.New(cfg.Server, client.NewHTTP(clientTimeout, clientRedirects))
	if err != nil {
		return nil, err
	}
	c.Token, c.MaxBytes = cfg.Token, maxClientResponse
	return c, nil
}

// clientConfig reads --server and the token from REGISTRY_TOKEN.
func clientConfig(env *environment, name string, args []string) (config.Client, []string, error) {
	var cfg config.Client
	fs := flagSet(env, name)
	if err := parseFlags(env, fs, cfg.Options(), args); err != nil {
		return cfg, nil, err
	}
	cfg.Token = env.Getenv("REGISTRY_TOKEN")
	return cfg, fs.Args(), nil
}

// printJSON writes v as indented JSON: the --json form of a list.
func printJSON(env *environment, v any) error {
	enc := json.NewEncoder(env.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
