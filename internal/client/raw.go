package client

import (
	"context"
	"encoding/json"

	"github.com/agora-registry/registry/internal/apperr"
)

// JSON sends a request to path (with its query) and returns a 2xx answer's
// JSON as it is, for callers that pass answers on (the MCP tools); body,
// when not nil, is sent as application/json.
func (c *Client) JSON(ctx context.Context, method, path string, body []byte) (json.RawMessage, error) {
	ct := ""
	if body != nil {
		ct = "application/json"
	}
	req, err := c.request(ctx, method, path, body, ct, "application/json")
	if err != nil {
		return nil, err
	}
	_, answer, err := c.do(req, firstPositive(c.MaxBytes, DefaultMaxBytes))
	if err != nil {
		return nil, err
	}
	if !json.Valid(answer) {
		return nil, apperr.Wrap(ErrBadAnswer.Kind, ErrBadAnswer.Code, ErrBadAnswer.Message, nil)
	}
	return answer, nil
}
