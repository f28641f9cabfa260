package agent

import (
	"encoding/json"
	"net/http"
	"sort"
)

// WellKnownMeta is the "_meta" entry of /.wellknown.
type WellKnownMeta struct {
	Name            string   `json:"name"`
	Description     string   `json:"description,omitempty"`
	Kinds           []string `json:"kinds"`
	HashSpellings   []string `json:"hashSpellings"`
	NaturalLanguage bool     `json:"naturalLanguage"`
	Multiround      bool     `json:"multiround"`
}

// WellKnown builds the /.wellknown document: the spec's hash -> sources
// map, plus "_unsupported" and "_meta" (a leading '_' never starts a hex or
// standard-Base64 hash, so old clients can skip these keys).
func (a *Agent) WellKnown() map[string]any {
	out := map[string]any{}
	for d, sources := range a.advertised {
		if sources == nil {
			sources = []string{}
		}
		out[d.Hex()] = sources
	}
	unsupported := []string{}
	for d := range a.unsupported {
		unsupported = append(unsupported, d.Hex())
	}
	sort.Strings(unsupported)
	out["_unsupported"] = unsupported
	kinds := a.cfg.Kinds
	if kinds == nil {
		kinds = []string{}
	}
	out["_meta"] = WellKnownMeta{
		Name: a.cfg.Name, Description: a.cfg.Description, Kinds: kinds,
		HashSpellings: []string{"hex", "base64"}, NaturalLanguage: a.llm != nil, Multiround: true,
	}
	return out
}

func (a *Agent) handleWellKnown(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=60")
	_ = json.NewEncoder(w).Encode(a.WellKnown())
}
