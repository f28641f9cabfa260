// Package ard is the registry as an Agentic Resource Discovery (ARD)
// registry: its protocols and indexed agents as catalog entries, the
// manifest at /.well-known/ard.json, and the ARD registry API's search,
// explore, list and lookup with federation to the registries it follows.
// It implements draft v0.9 of github.com/ards-project/ard-spec; where it
// departs from it is in docs/discovery.md. Transports call Service; it
// calls the registry and the directory through the interfaces below.
package ard

import (
	"context"
	"encoding/json"

	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store"
)

// Media types of the entries this registry serves. Agora protocol
// documents and Agora agents have no registered type; these are ours.
const (
	TypeProtocol = `text/markdown; profile="agora-protocol"`
	TypeAgent    = "application/agora-agent+json"
	TypeRegistry = "application/ai-registry+json"
	TypeCatalog  = "application/ai-catalog+json"
	SpecVersion  = "1.0"
)

// Bounds of one request (docs/discovery.md).
const (
	MaxRequestBytes   = 64 << 10 // a search or explore body
	DefaultPageSize   = 10       // search
	DefaultListSize   = 20       // list
	MaxPageSize       = 100      // search and list
	ManifestPageSize  = 100      // entries of one manifest page
	MaxFilterKeys     = 8
	MaxFilterValues   = 32 // per key
	MaxFilterValueLen = 256
	MaxFacets         = 8
	DefaultFacetLimit = 20
	MaxFacetLimit     = 100
	// speakerProtocols: the agents of this many top matches join a
	// search's results, at most speakersPerProtocol each.
	speakerProtocols    = 5
	speakersPerProtocol = 20
	maxCapabilities     = 32 // hashes an agent entry lists
)

// Entry is a catalog entry (spec §4.2). Exactly one of URL and Data is set.
type Entry struct {
	Identifier            string          `json:"identifier"`
	DisplayName           string          `json:"displayName"`
	Type                  string          `json:"type"`
	URL                   string          `json:"url,omitempty"`
	Data                  json.RawMessage `json:"data,omitempty"`
	Description           string          `json:"description,omitempty"`
	Tags                  []string        `json:"tags,omitempty"`
	Capabilities          []string        `json:"capabilities,omitempty"`
	RepresentativeQueries []string        `json:"representativeQueries,omitempty"`
	Version               string          `json:"version,omitempty"`
	UpdatedAt             string          `json:"updatedAt,omitempty"`
	Metadata              map[string]any  `json:"metadata,omitempty"`
}

// Host is a manifest's host object (§4.3).
type Host struct {
	DisplayName      string `json:"displayName"`
	Identifier       string `json:"identifier,omitempty"`
	DocumentationURL string `json:"documentationUrl,omitempty"`
}

// Manifest is the capability manifest (§4.1).
type Manifest struct {
	SpecVersion string  `json:"specVersion"`
	Host        Host    `json:"host"`
	Entries     []Entry `json:"entries"`
}

// Result is a search result: an entry with its relevance and where it was
// indexed.
type Result struct {
	Entry
	Score  int    `json:"score"`
	Source string `json:"source"`
}

// Referral is a registry a client may ask next (§8).
type Referral struct {
	Identifier  string `json:"identifier"`
	DisplayName string `json:"displayName"`
	Type        string `json:"type"`
	URL         string `json:"url"`
}

// Query is the shared query model (§7.1). Filter values are a string or a
// list of strings.
type Query struct {
	Text   *string                    `json:"text,omitempty"`
	Filter map[string]json.RawMessage `json:"filter,omitempty"`
}

// SearchRequest is POST /search's body (§7.2).
type SearchRequest struct {
	Query      *Query `json:"query"`
	Federation string `json:"federation,omitempty"`
	PageSize   *int   `json:"pageSize,omitempty"`
	PageToken  string `json:"pageToken,omitempty"`
}

// SearchResponse answers a search. This registry never pages a search
// (its match ranks a bounded candidate set), so PageToken stays empty.
type SearchResponse struct {
	Results   []Result   `json:"results"`
	Referrals []Referral `json:"referrals,omitempty"`
	PageToken string     `json:"pageToken,omitempty"`
}

// FacetRequest is one facet of an explore.
type FacetRequest struct {
	Field    string `json:"field"`
	Limit    *int   `json:"limit,omitempty"`
	MinCount *int   `json:"minCount,omitempty"`
}

// ExploreRequest is POST /explore's body (§7.3).
type ExploreRequest struct {
	Query      *Query `json:"query,omitempty"`
	ResultType *struct {
		Facets []FacetRequest `json:"facets"`
	} `json:"resultType"`
}

// Bucket is one value of a facet and its count.
type Bucket struct {
	Value string `json:"value"`
	Count int    `json:"count"`
}

// Facet is one facet's buckets; OtherCount counts the matches in buckets
// beyond the limit.
type Facet struct {
	Buckets    []Bucket `json:"buckets"`
	OtherCount int      `json:"otherCount,omitempty"`
}

// ExploreResponse answers an explore.
type ExploreResponse struct {
	ResultType string           `json:"resultType"`
	Facets     map[string]Facet `json:"facets"`
}

// ListResponse answers GET /agents (§7.4).
type ListResponse struct {
	Items     []Entry `json:"items"`
	PageToken string  `json:"pageToken,omitempty"`
}

// Errors of the ARD surface; transports map their kinds to the spec's
// error codes (ErrorCode).
var (
	ErrInvalid      = apperr.New(apperr.Invalid, "ard_invalid", "the ARD request is malformed")
	ErrUnknownField = apperr.New(apperr.Invalid, "ard_unsupported_field", "this registry does not filter or facet on that field")
	ErrNotFound     = apperr.New(apperr.NotFound, "ard_not_found", "no entry with this identifier is indexed here")
	ErrBadToken     = apperr.New(apperr.Invalid, "ard_invalid_page_token", "the page token is not one this registry issued")
)

// Protocols is what the service needs from the registry.
type Protocols interface {
	Match(ctx context.Context, r registry.MatchRequest) ([]registry.Match, error)
	Search(ctx context.Context, q store.Query) (store.Page, error)
	Get(ctx context.Context, d protocol.Digest, withContent bool) (entity.Entry, error)
	Stats(ctx context.Context) (store.Stats, error)
	PublicURL() string
}

// Agents is what the service needs from the agent directory.
type Agents interface {
	List(ctx context.Context, q store.AgentQuery) (store.AgentPage, error)
	For(ctx context.Context, d protocol.Digest) (store.ProtocolAgents, error)
	ByURL(ctx context.Context, url string) (entity.Agent, error)
	Count(ctx context.Context) (int, error)
}

// ErrorCode is the spec's error code (Appendix B) for an HTTP status.
func ErrorCode(status int) string {
	switch {
	case status == 401 || status == 403:
		return "UNAUTHENTICATED"
	case status == 404 || status == 410:
		return "NOT_FOUND"
	case status == 429:
		return "RATE_LIMIT_EXCEEDED"
	case status == 501:
		return "NOT_IMPLEMENTED"
	case status == 503:
		return "UNAVAILABLE"
	case status >= 500:
		return "INTERNAL_ERROR"
	}
	return "INVALID_ARGUMENT"
}

// ErrorBody is the spec's error shape, with the registry's stable code
// and request id beside it.
type ErrorBody struct {
	ErrorCode string `json:"errorCode"`
	Message   string `json:"message"`
	Code      string `json:"code"`
	RequestID string `json:"requestId,omitempty"`
}
