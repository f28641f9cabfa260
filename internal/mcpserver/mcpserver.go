// Package mcpserver exposes the registry to MCP clients (LLM tools) with
// the official Go SDK: read-only tools that each make one request to the
// registry's HTTP API and hand back its JSON answer. `registry mcp` serves
// them on stdio against a running registry; the registry itself serves
// them at /mcp (streamable HTTP), asking its own handler in-process.
package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/buildinfo"
	"github.com/agora-registry/registry/internal/client"
)

// API is the registry HTTP API the tools ask (internal/client.Client).
type API interface {
	JSON(ctx context.Context, method, path string, body []byte) (json.RawMessage, error)
}

// SearchInput is search_protocols' arguments.
type SearchInput struct {
	Query  string   `json:"query,omitempty" jsonschema:"words that must all appear (title, description, tags or text)"`
	Tags   []string `json:"tags,omitempty" jsonschema:"tags every result carries"`
	Sort   string   `json:"sort,omitempty" jsonschema:"relevance, newest, name or popular (popular takes no query)"`
	Limit  int      `json:"limit,omitempty" jsonschema:"results per page, at most 100"`
	Cursor string   `json:"cursor,omitempty" jsonschema:"nextCursor of the previous page"`
}

// GetInput is get_protocol's arguments.
type GetInput struct {
	Hash    string `json:"hash" jsonschema:"the protocol's SHA-1, 40 hex or 28 Base64 characters"`
	Content bool   `json:"content,omitempty" jsonschema:"include the document's text"`
}

// ResolveInput is resolve_hashes' arguments.
type ResolveInput struct {
	Hashes []string `json:"hashes" jsonschema:"protocol hashes, at most 1000"`
}

// AgentsInput is find_agents' arguments.
type AgentsInput struct {
	Speaks string `json:"speaks,omitempty" jsonschema:"a protocol hash the agents list as supported"`
	Kind   string `json:"kind,omitempty" jsonschema:"a kind the agents list"`
	Query  string `json:"query,omitempty" jsonschema:"words in the agent's name, description or URL"`
	Limit  int    `json:"limit,omitempty" jsonschema:"results per page, at most 100"`
	Cursor string `json:"cursor,omitempty" jsonschema:"nextCursor of the previous page"`
}

// MatchInput is match_task's arguments.
type MatchInput struct {
	Task         string         `json:"task,omitempty" jsonschema:"what the task is, in words"`
	InputSchema  map[string]any `json:"inputSchema,omitempty" jsonschema:"the JSON schema of the task's input"`
	OutputSchema map[string]any `json:"outputSchema,omitempty" jsonschema:"the JSON schema of the task's output"`
	Limit        int            `json:"limit,omitempty" jsonschema:"protocols to return, at most 20"`
}

// New builds the MCP server over api.
func New(api API) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "agora-registry", Version: buildinfo.Version()}, nil)
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}
	tool := func(name, desc string) *mcp.Tool {
		return &mcp.Tool{Name: name, Description: desc, Annotations: readOnly}
	}
	mcp.AddTool(s, tool("search_protocols", "Search the registry's Agora protocol documents by words and tags, or list them newest, by name or most used."),
		func(ctx context.Context, _ *mcp.CallToolRequest, in SearchInput) (*mcp.CallToolResult, any, error) {
			q := url.Values{}
			set(q, "q", in.Query)
			set(q, "sort", in.Sort)
			set(q, "cursor", in.Cursor)
			setInt(q, "limit", in.Limit)
			for _, t := range in.Tags {
				q.Add("tag", t)
			}
			return answer(api.JSON(ctx, http.MethodGet, "/api/v1/protocols?"+q.Encode(), nil))
		})
	mcp.AddTool(s, tool("get_protocol", "One protocol document's metadata, sources, versions and adoption; with content=true its text too."),
		func(ctx context.Context, _ *mcp.CallToolRequest, in GetInput) (*mcp.CallToolResult, any, error) {
			path := "/api/v1/protocols/" + url.PathEscape(in.Hash)
			if in.Content {
				path += "?content=1"
			}
			return answer(api.JSON(ctx, http.MethodGet, path, nil))
		})
	mcp.AddTool(s, tool("resolve_hashes", "Which of these protocol hashes the registry holds, with their titles and raw URLs (protocolSources)."),
		func(ctx context.Context, _ *mcp.CallToolRequest, in ResolveInput) (*mcp.CallToolResult, any, error) {
			body, err := json.Marshal(map[string][]string{"hashes": nonNil(in.Hashes)})
			if err != nil {
				return nil, nil, err
			}
			return answer(api.JSON(ctx, http.MethodPost, "/api/v1/resolve", body))
		})
	mcp.AddTool(s, tool("find_agents", "Registered Agora agents, by a protocol they speak, a kind or words."),
		func(ctx context.Context, _ *mcp.CallToolRequest, in AgentsInput) (*mcp.CallToolResult, any, error) {
			q := url.Values{}
			set(q, "speaks", in.Speaks)
			set(q, "kind", in.Kind)
			set(q, "q", in.Query)
			set(q, "cursor", in.Cursor)
			setInt(q, "limit", in.Limit)
			return answer(api.JSON(ctx, http.MethodGet, "/api/v1/agents?"+q.Encode(), nil))
		})
	mcp.AddTool(s, tool("match_task", "Rank protocols for a task described in words and/or by its input and output JSON schemas, with the reasons for each rank."),
		func(ctx context.Context, _ *mcp.CallToolRequest, in MatchInput) (*mcp.CallToolResult, any, error) {
			body, err := json.Marshal(in)
			if err != nil {
				return nil, nil, err
			}
			return answer(api.JSON(ctx, http.MethodPost, "/api/v1/match", body))
		})
	return s
}

func set(q url.Values, k, v string) {
	if v != "" {
		q.Set(k, v)
	}
}

func setInt(q url.Values, k string, v int) {
	if v != 0 {
		q.Set(k, strconv.Itoa(v))
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// answer turns the API's answer into a tool result: the JSON as text, or
// the registry's refusal as a tool error the model can read.
func answer(raw json.RawMessage, err error) (*mcp.CallToolResult, any, error) {
	if err != nil {
		e := apperr.As(err)
		if e == nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%s: %s", e.Code, e.Message)}}}, nil, nil
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(raw)}}}, nil, nil
}

// Handler is the /mcp endpoint: streamable HTTP, stateless (no session is
// kept between requests), each tool call asking next (the registry's own
// handler) in-process with the caller's address, so its limits apply.
func Handler(base string, next http.Handler, maxBody int64) (http.Handler, error) {
	hc := &http.Client{Transport: inProcess{next}}
	c, err := client.New(base, hc)
	if err != nil {
		return nil, err
	}
	srv := New(c)
	return withRemote(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, MaxRequestBodyBytes: maxBody})), nil
}

// ServeStdio serves the tools on stdin/stdout against the registry at base
// until ctx ends or the client closes stdin.
// Whether the registry answers is checked once at start and said on
// stderr (the MCP client's log), since a client may start it first.
func ServeStdio(ctx context.Context, base string, stderr io.Writer) error {
	c, err := client.New(base, client.NewHTTP(stdioTimeout, 3))
	if err != nil {
		return err
	}
	c.UserAgent = "agora-registry-mcp/1"
	api := namedAPI{c, c.Origin()}
	probe, cancel := context.WithTimeout(ctx, probeTimeout)
	_, err = api.JSON(probe, http.MethodGet, "/api/v1/stats", nil)
	cancel()
	if err != nil {
		fmt.Fprintf(stderr, "registry mcp: %v; the tools answer errors until it does\n", err)
	} else {
		fmt.Fprintf(stderr, "registry mcp: serving the tools of the registry at %s on stdio\n", api.origin)
	}
	return New(api).Run(ctx, &mcp.StdioTransport{})
}

// probeTimeout bounds the start-up check of the registry.
const probeTimeout = 5 * time.Second

// namedAPI names the registry in the errors that are about reaching it,
// so a tool's error says which URL to fix or start.
type namedAPI struct {
	API
	origin string
}

func (n namedAPI) JSON(ctx context.Context, method, path string, body []byte) (json.RawMessage, error) {
	raw, err := n.API.JSON(ctx, method, path, body)
	if err != nil && errors.Is(err, client.ErrUnreachable) {
		detail := err.Error()
		if e := apperr.As(err); e != nil {
			detail = e.Message
		}
		return nil, client.ErrUnreachable.With(fmt.Sprintf("the registry at %s could not be reached (%s): start it, or give its URL with --registry", n.origin, detail))
	}
	return raw, err
}

// stdioTimeout bounds one API request of the stdio server.
const stdioTimeout = 30 * time.Second
