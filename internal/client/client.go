// Package client is the one Go client of the registry HTTP API (CLI, agent
// resolver, mirror): bounded reads, hash-verified documents, problem+json
// errors. It is the public agora module's registry client (agora.Registry),
// under the names the registry's code has always used.
package client

import (
	"net/http"

	"github.com/agora-registry/registry/agora"
)

// DefaultMaxBytes caps a JSON answer unless Client.MaxBytes says otherwise.
const DefaultMaxBytes = agora.DefaultRegistryMaxBytes

// Errors, with stable codes.
var (
	ErrUnreachable = agora.ErrRegistryUnreachable
	ErrBadAnswer   = agora.ErrRegistryBadAnswer
	ErrTooLarge    = agora.ErrRegistryTooLarge
	ErrBadBase     = agora.ErrRegistryURL
)

// The registry client and what it reads.
type (
	Client     = agora.Registry
	Protocol   = agora.Protocol
	Published  = agora.Published
	Resolution = agora.Resolution
	Query      = agora.Query
	Page       = agora.Page
	Error      = agora.RegistryError
	WellKnown  = agora.RegistryWellKnown
)

// New is a client of the registry at base (agora.NewRegistry).
func New(base string, hc *http.Client) (*Client, error) { return agora.NewRegistry(base, hc) }
