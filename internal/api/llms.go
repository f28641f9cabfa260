package api

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// llmsTxt answers GET /llms.txt (llmstxt.org): the registry described for
// language models, with the URLs of this registry.
func (s *Server) llmsTxt(c echo.Context) error {
	base := s.svc.PublicURL()
	var b strings.Builder
	fmt.Fprintf(&b, `# Agora Registry

> A registry of Agora protocol documents. An Agora protocol document is a text (usually Markdown with YAML front matter) that two LLM agents agree to speak; it is named by the SHA-1 of its exact bytes (40 hex digits, or 28 Base64 characters as the Python SDK spells it). This registry stores documents, serves their exact bytes at stable URLs that agents put in protocolSources, and lets people and programs search them, see who publishes and speaks them, and check its transparency log.

Every hash parameter takes hex or Base64 (a '/' in Base64 is sent as %%2F in a path); a hex prefix of 8 or more digits works where a listing shows a short hash. Errors are application/problem+json with a stable "code". Documents never change: a new version is a new document, and an old one may be deprecated (with a replacement) or withdrawn (410).

## Reading protocols

- [Raw document](%[1]s/protocol/{hash}): the exact bytes of one document, for protocolSources; its SHA-1 is its name.
- [Search and list](%[1]s/api/v1/protocols?q=weather): JSON; q takes words and the operators tag:, publisher: and status:; sort=relevance|newest|name|popular.
- [One protocol](%[1]s/api/v1/protocols/{hash}): metadata, sources, versions, adoption, lifecycle; ?content=1 adds the text.
- [Resolve many hashes](%[1]s/api/v1/resolve): POST {"hashes": [...]}, answers which exist and where to fetch them.
- [Task match](%[1]s/api/v1/match): POST {"task": "..."}, protocols ranked for a task, with reasons.
- [Agents](%[1]s/api/v1/agents): registered agents and the protocols they speak (?speaks={hash}).

## Agentic Resource Discovery (ARD)

- [ARD manifest](%[1]s/.well-known/ard.json): this registry, its protocols and its agents as catalog entries (also at /.well-known/ai-catalog.json).
- [ARD registry API](%[1]s/ard/agents): the base URL is %[1]s/ard; POST /ard/search {"query": {"text": "..."}} (scored results; federation auto, referrals or none over the registries this one follows), POST /ard/explore (facets), GET /ard/agents (list), GET /ard/agents/{urn} (lookup).

## Machine descriptions

- [OpenAPI description](%[1]s/api/v1/openapi.json): every operation of the JSON API.
- [API reference](%[1]s/api): the same, for people.
- [MCP endpoint](%[1]s/mcp): streamable HTTP MCP with the tools search_protocols, get_protocol, resolve_hashes, find_agents and match_task (read-only).

## Trust

- [Transparency log](%[1]s/log): every publish and status change in an append-only Merkle tree; the signed checkpoint is at /log/checkpoint, tiles at /log/tile/, a document's record at /log/lookup/{hash}, its offline-checkable proof (c2sp.org/tlog-proof) at /protocol/{hash}.tlog-proof.
- [Change feed](%[1]s/api/v1/changes): every logged change as JSON (after=, wait=).
- [Atom feed](%[1]s/feed.atom): new and changed protocols (?tag=, ?publisher=).
`, base)
	c.Response().Header().Set("Cache-Control", "public, max-age=300")
	return c.Blob(http.StatusOK, "text/markdown; charset=utf-8", []byte(b.String()))
}
