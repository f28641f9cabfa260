package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/agora-registry/registry/internal/config"
	"github.com/agora-registry/registry/internal/protocol"
)

// Limits of the client commands.
const (
	clientTimeout      = 60 * time.Second
	maxClientResponse  = 2 * protocol.DefaultMaxDocumentBytes
	maxProblemResponse = 64 << 10
)

// registryClient talks to a running registry for publish and get.
type registryClient struct {
	base  string
	token string
	http  *http.Client
}

func newClient(cfg config.Client) *registryClient {
	return &registryClient{base: strings.TrimRight(cfg.Server, "/"), token: cfg.Token, http: &http.Client{Timeout: clientTimeout}}
}

func (c *registryClient) do(req *http.Request) (*http.Response, error) {
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	req.Header.Set("Accept", "application/json")
	return c.http.Do(req)
}

// problemError reads an error response in the API's problem shape.
func problemError(res *http.Response) error {
	body, _ := io.ReadAll(io.LimitReader(res.Body, maxProblemResponse))
	var p struct {
		Code   string `json:"code"`
		Detail string `json:"detail"`
	}
	if json.Unmarshal(body, &p) == nil && p.Code != "" {
		return fmt.Errorf("%s (%s, HTTP %d)", p.Detail, p.Code, res.StatusCode)
	}
	return fmt.Errorf("HTTP %d from the registry", res.StatusCode)
}

// clientConfig reads --server and the token from REGISTRY_TOKEN.
func clientConfig(env *environment, name string, args []string) (config.Client, []string, error) {
	var cfg config.Client
	fs := flagSet(env, name)
	if err := parseFlags(env, fs, cfg.Options(), args); err != nil {
		return cfg, nil, err
	}
	cfg.Token = env.getenv("REGISTRY_TOKEN")
	return cfg, fs.Args(), nil
}
