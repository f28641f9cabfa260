package agora

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Agent is the registry's JSON view of an agent in its directory.
// Supported and Unsupported are filled by RegisterAgent only (the list
// carries counts).
type Agent struct {
	ID               int64       `json:"id"`
	URL              string      `json:"url"`
	Name             string      `json:"name"`
	Description      string      `json:"description"`
	Kinds            []string    `json:"kinds"`
	WellKnownURL     string      `json:"wellKnownUrl"`
	RegisteredAt     time.Time   `json:"registeredAt"`
	LastSeen         *time.Time  `json:"lastSeen"`
	LastCrawled      *time.Time  `json:"lastCrawled"`
	LastError        string      `json:"lastError"`
	Failures         int         `json:"failures"`
	SupportedCount   int         `json:"supportedCount"`
	UnsupportedCount int         `json:"unsupportedCount"`
	Supported        []AgentHash `json:"supported,omitempty"`
	Unsupported      []AgentHash `json:"unsupported,omitempty"`
	HTMLURL          string      `json:"htmlUrl"`
}

// AgentHash is one hash an agent lists, as the registry recorded it.
type AgentHash struct {
	Hex     string   `json:"hex"`
	Sources []string `json:"sources,omitempty"`
	Known   bool     `json:"known"`
	Title   string   `json:"title,omitempty"`
}

// AgentQuery is a directory search; zero fields are left out.
type AgentQuery struct {
	Speaks Digest // lists this hash as supported
	Kind   string
	Text   string
	Limit  int
	Cursor string
}

// AgentPage is one page of the directory.
type AgentPage struct {
	Items      []Agent `json:"items"`
	NextCursor *string `json:"nextCursor"`
}

// RegisterAgent asks the registry to crawl the agent at agentURL and
// record what it speaks (POST /api/v1/agents; a publish token when the
// registry wants one). Registering again re-crawls.
func (c *Registry) RegisterAgent(ctx context.Context, agentURL string) (Agent, error) {
	body, err := json.Marshal(map[string]string{"url": agentURL})
	if err != nil {
		return Agent{}, err
	}
	req, err := c.request(ctx, http.MethodPost, "/api/v1/agents", body, "application/json", "application/json")
	if err != nil {
		return Agent{}, err
	}
	var a Agent
	_, err = c.doJSON(req, &a)
	return a, err
}

// Agents returns one page of the registry's agent directory.
func (c *Registry) Agents(ctx context.Context, q AgentQuery) (AgentPage, error) {
	v := url.Values{}
	if !q.Speaks.IsZero() {
		v.Set("speaks", q.Speaks.Hex())
	}
	for k, s := range map[string]string{"kind": q.Kind, "q": q.Text, "cursor": q.Cursor} {
		if s != "" {
			v.Set(k, s)
		}
	}
	if q.Limit > 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	path := "/api/v1/agents"
	if len(v) > 0 {
		path += "?" + v.Encode()
	}
	req, err := c.request(ctx, http.MethodGet, path, nil, "", "application/json")
	if err != nil {
		return AgentPage{}, err
	}
	var p AgentPage
	_, err = c.doJSON(req, &p)
	return p, err
}
