package agora

import (
	"context"
	"encoding/json"
)

// JSON sends a request to path (with its query) and returns a 2xx answer's
// JSON as it is, for callers that pass answers on (an MCP server, a proxy);
// body, when not nil, is sent as application/json.
func (c *Registry) JSON(ctx context.Context, method, path string, body []byte) (json.RawMessage, error) {
	ct := ""
	if body != nil {
		ct = "application/json"
	}
	req, err := c.request(ctx, method, path, body, ct, "application/json")
	if err != nil {
		return nil, err
	}
	_, answer, err := c.do(req, firstPositive(c.MaxBytes, DefaultRegistryMaxBytes))
	if err != nil {
		return nil, err
	}
	if !json.Valid(answer) {
		return nil, wrapError(ErrRegistryBadAnswer.Kind, ErrRegistryBadAnswer.Code, ErrRegistryBadAnswer.Message, nil)
	}
	return answer, nil
}
