package agora

import (
	"context"
	"encoding/json"
	"net/http"
)

// MatchRequest is a task to find protocols for (POST /api/v1/match):
// a description and the JSON schemas of its input and output, as
// TaskSchema holds them; any may be empty, not all.
type MatchRequest struct {
	Task         string          `json:"task,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Limit        int             `json:"limit,omitempty"`
}

// MatchReason is one contribution to a match's score.
type MatchReason struct {
	Kind   string   `json:"kind"`
	Words  []string `json:"words,omitempty"`
	Points float64  `json:"points"`
}

// MatchItem is one ranked protocol.
type MatchItem struct {
	Protocol
	Score   float64       `json:"score"`
	Reasons []MatchReason `json:"reasons"`
}

// MatchResult is the registry's ranking. RankedBy is "deterministic",
// or "llm" when the registry's model re-ranked the top candidates.
type MatchResult struct {
	Items    []MatchItem `json:"items"`
	RankedBy string      `json:"rankedBy"`
}

// MatchTask is the MatchRequest of a TaskSchema.
func MatchTask(ts TaskSchema, limit int) MatchRequest {
	return MatchRequest{Task: ts.Description, InputSchema: ts.InputSchema, OutputSchema: ts.OutputSchema, Limit: limit}
}

// Match asks the registry for the protocols that fit a task, best first.
func (c *Registry) Match(ctx context.Context, m MatchRequest) (MatchResult, error) {
	body, err := json.Marshal(m)
	if err != nil {
		return MatchResult{}, err
	}
	req, err := c.request(ctx, http.MethodPost, "/api/v1/match", body, "application/json", "application/json")
	if err != nil {
		return MatchResult{}, err
	}
	var r MatchResult
	_, err = c.doJSON(req, &r)
	return r, err
}
