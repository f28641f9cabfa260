package agora

import (
	"encoding/json"
	"net/http"
	"sort"
)

// The three well-known readers and their shapes (docs/agent.md):
//
//	GET /.wellknown        the seed's spelling: hash -> sources, plus _unsupported and _meta
//	GET /wellknown         spec v0.2, strict: hash -> non-empty list of sources, nothing else
//	GET /.well-known/agora RFC 8615: StructuredWellKnown

// WellKnownMeta is the "_meta" entry of /.wellknown.
type WellKnownMeta struct {
	Name            string   `json:"name"`
	Description     string   `json:"description,omitempty"`
	Kinds           []string `json:"kinds"`
	HashSpellings   []string `json:"hashSpellings"`
	NaturalLanguage bool     `json:"naturalLanguage"`
	Multiround      bool     `json:"multiround"`
}

// acceptedSpellings are the hash spellings this agent's receiver accepts.
var acceptedSpellings = []string{SpellingHex, SpellingBase64}

// WellKnown builds the /.wellknown document: the spec's hash -> sources
// map, plus "_unsupported" and "_meta" (a leading '_' never starts a hex or
// standard-Base64 hash, so old clients can skip these keys).
func (a *Handler) WellKnown() any {
	out := map[string]any{}
	for hash, sources := range a.supportedSources() {
		out[hash] = sources
	}
	out["_unsupported"] = a.unsupportedHashes()
	out["_meta"] = WellKnownMeta{
		Name: a.cfg.Name, Description: a.cfg.Description, Kinds: a.kinds(),
		HashSpellings: acceptedSpellings, NaturalLanguage: a.llm != nil, Multiround: true,
	}
	return out
}

// StrictWellKnown builds spec v0.2's /wellknown: every key a supported hash,
// every value a non-empty list of sources. A protocol with no source to
// give is left out rather than listed with an empty list.
func (a *Handler) StrictWellKnown() any {
	out := map[string][]string{}
	for hash, sources := range a.supportedSources() {
		if len(sources) > 0 {
			out[hash] = sources
		}
	}
	return out
}

// StructuredWellKnownDoc is the /.well-known/agora document.
type StructuredWellKnownDoc struct {
	Supported       map[string][]string `json:"supported"`
	Unsupported     []string            `json:"unsupported"`
	Kinds           []string            `json:"kinds"`
	HashSpellings   []string            `json:"hashSpellings"`
	Name            string              `json:"name"`
	Description     string              `json:"description"`
	Registries      []string            `json:"registries"`
	NaturalLanguage bool                `json:"naturalLanguage"`
	Multiround      bool                `json:"multiround"`
}

// StructuredWellKnown builds the /.well-known/agora document.
func (a *Handler) StructuredWellKnown() any {
	return StructuredWellKnownDoc{
		Supported: a.supportedSources(), Unsupported: a.unsupportedHashes(), Kinds: a.kinds(),
		HashSpellings: acceptedSpellings, Name: a.cfg.Name, Description: a.cfg.Description,
		Registries: append([]string{}, a.publicRegistries()...), NaturalLanguage: a.llm != nil, Multiround: true,
	}
}

// supportedSources maps each supported hash (hex) to its advertised sources.
func (a *Handler) supportedSources() map[string][]string {
	a.mu.RLock()
	defer a.mu.RUnlock()
	out := make(map[string][]string, len(a.advertised))
	for d, sources := range a.advertised {
		out[d.Hex()] = append([]string{}, sources...)
	}
	return out
}

func (a *Handler) unsupportedHashes() []string {
	a.mu.RLock()
	defer a.mu.RUnlock()
	out := []string{}
	for d := range a.unsupported {
		out = append(out, d.Hex())
	}
	sort.Strings(out)
	return out
}

func (a *Handler) kinds() []string { return append([]string{}, a.cfg.Kinds...) }

// publicRegistries are the registry URLs readers of the well-known lists
// can reach (Options.Registries).
func (a *Handler) publicRegistries() []string {
	return a.cfg.Registries
}

func (a *Handler) serveWellKnown(build func() any) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "public, max-age=60")
		_ = json.NewEncoder(w).Encode(build())
	}
}
