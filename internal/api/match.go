package api

import (
	"encoding/json"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/registry"
)

// matchJSON is POST /api/v1/match's body. The schemas are accepted under
// the Python SDK's TaskSchema names too (description, input_schema,
// output_schema), so TaskSchema.to_json() can be posted as it is.
type matchJSON struct {
	Task              string          `json:"task"`
	Description       string          `json:"description"`
	InputSchema       json.RawMessage `json:"inputSchema"`
	OutputSchema      json.RawMessage `json:"outputSchema"`
	InputSchemaSnake  json.RawMessage `json:"input_schema"`
	OutputSchemaSnake json.RawMessage `json:"output_schema"`
	Limit             int             `json:"limit"`
}

// MatchItem is one ranked protocol: its view, score and reasons.
type MatchItem struct {
	ProtocolView
	Score   float64             `json:"score"`
	Reasons []agora.MatchReason `json:"reasons"`
}

// MatchResult answers a match like a search page (one page, no cursor).
// RankedBy is "deterministic", or "llm" when the registry's model
// re-ranked the top candidates (Reranked); RerankSkipped says why a
// configured model did not (budget, client_budget, busy, failed).
type MatchResult struct {
	Items         []MatchItem `json:"items"`
	NextCursor    *string     `json:"nextCursor"`
	RankedBy      string      `json:"rankedBy"`
	Reranked      bool        `json:"reranked"`
	RerankSkipped string      `json:"rerankSkipped,omitempty"`
}

// RerankSkippedHeader carries MatchResult.RerankSkipped, for clients that
// read headers only.
const RerankSkippedHeader = "Agora-Rerank-Skipped"

func orRaw(a, b json.RawMessage) json.RawMessage {
	if len(a) > 0 {
		return a
	}
	return b
}

func (s *Server) match(c echo.Context) error {
	body, err := readSizedBody(c)
	if err != nil {
		return err
	}
	var m matchJSON
	if err := unmarshalStrict(body, &m); err != nil {
		return err
	}
	task := m.Task
	if task == "" {
		task = m.Description
	}
	client, _ := ClientKey(c.RealIP(), s.cfg.IPv6ClientPrefix)
	res, err := s.svc.MatchRanked(c.Request().Context(), registry.MatchRequest{Task: task, Limit: m.Limit,
		InputSchema: orRaw(m.InputSchema, m.InputSchemaSnake), OutputSchema: orRaw(m.OutputSchema, m.OutputSchemaSnake),
		Client: client.String()})
	if err != nil {
		return err
	}
	out := MatchResult{Items: make([]MatchItem, 0, len(res.Items)), RankedBy: res.RankedBy,
		Reranked: res.RankedBy == registry.RankedByLLM, RerankSkipped: res.Skipped}
	s.metrics.reranked(res)
	if res.Skipped != "" {
		c.Response().Header().Set(RerankSkippedHeader, res.Skipped)
	}
	for _, r := range res.Items {
		item := MatchItem{ProtocolView: protocolView(s.svc, r.Entry), Score: r.Score, Reasons: make([]agora.MatchReason, 0, len(r.Reasons))}
		item.Fetches, item.Resolutions, item.Agents = r.Signals.Fetches, r.Signals.Resolutions, r.Signals.Agents
		for _, why := range r.Reasons {
			item.Reasons = append(item.Reasons, agora.MatchReason{Kind: why.Kind, Words: why.Words, Points: why.Points})
		}
		out.Items = append(out.Items, item)
	}
	return writeJSON(c, http.StatusOK, out)
}
