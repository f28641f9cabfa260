package api

import (
	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/mcpserver"
)

// WithMCP serves the read-only MCP tools at /mcp (streamable HTTP).
func WithMCP() Option { return func(s *Server) { s.mcp = true } }

// mcpBase names the in-process API the /mcp tools ask; its requests never
// leave the process, so the name is never resolved.
const mcpBase = "http://registry.in-process"

func (s *Server) mcpRoute() {
	if !s.mcp {
		return
	}
	h, err := mcpserver.Handler(mcpBase, s, s.cfg.MaxBodyBytes)
	if err != nil {
		panic(err) // mcpBase is a constant the tests check
	}
	s.echo.Any("/mcp", echo.WrapHandler(h))
}
