package agora

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// WellKnownInfo is what a target says it supports.
type WellKnownInfo struct {
	Supported   map[Digest][]string
	Unsupported map[Digest]bool
	// Keys holds each supported hash exactly as the target wrote it, so a
	// request can name it the same way.
	Keys map[Digest]string
	// HashSpellings are the spellings the target says it accepts, if any.
	HashSpellings []string
	Meta          json.RawMessage
	URL           string // where it was read
}

// wellKnownPaths are read in this order; the first that answers a JSON
// object of its shape wins. The SDK's receiver serves none of them.
var wellKnownPaths = []struct {
	path  string
	parse func([]byte) (WellKnownInfo, error)
}{
	{"/.well-known/agora", parseStructuredWellKnown},
	{"/.wellknown", parseWellKnown},
	{"/wellknown", parseWellKnown},
}

// FetchWellKnown reads what target supports from /.well-known/agora, then
// /.wellknown (the seed's spelling), then /wellknown (spec v0.2's).
func FetchWellKnown(ctx context.Context, client *http.Client, target string) (WellKnownInfo, error) {
	var errs []string
	for _, wk := range wellKnownPaths {
		u := strings.TrimRight(target, "/") + wk.path
		raw, err := getJSON(ctx, client, u)
		if err == nil {
			var info WellKnownInfo
			if info, err = wk.parse(raw); err == nil {
				info.URL = u
				return info, nil
			}
			err = fmt.Errorf("%s: %w", u, err)
		}
		errs = append(errs, err.Error())
		if ctx.Err() != nil {
			break
		}
	}
	return WellKnownInfo{}, fmt.Errorf("reading the well-known list of %s: %s", target, strings.Join(errs, "; "))
}

func newWellKnownInfo() WellKnownInfo {
	return WellKnownInfo{Supported: map[Digest][]string{}, Unsupported: map[Digest]bool{},
		Keys: map[Digest]string{}}
}

// parseWellKnown reads the flat form: hash -> sources. Keys that are not
// hashes are skipped, except the reserved _unsupported and _meta.
func parseWellKnown(raw []byte) (WellKnownInfo, error) {
	info := newWellKnownInfo()
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return info, fmt.Errorf("not a JSON object")
	}
	for k, v := range fields {
		switch k {
		case "_meta":
			info.Meta = v
			var meta struct {
				HashSpellings []string `json:"hashSpellings"`
			}
			_ = json.Unmarshal(v, &meta)
			info.HashSpellings = meta.HashSpellings
		case "_unsupported":
			var hashes []string
			_ = json.Unmarshal(v, &hashes)
			info.addUnsupported(hashes)
		default:
			var sources []string
			_ = json.Unmarshal(v, &sources)
			info.addSupported(k, sources)
		}
	}
	return info, nil
}

// parseStructuredWellKnown reads /.well-known/agora (StructuredWellKnownDoc).
func parseStructuredWellKnown(raw []byte) (WellKnownInfo, error) {
	info := newWellKnownInfo()
	var doc struct {
		Supported     map[string]json.RawMessage `json:"supported"`
		Unsupported   json.RawMessage            `json:"unsupported"`
		HashSpellings []string                   `json:"hashSpellings"`
		Name          json.RawMessage            `json:"name"`
		Description   json.RawMessage            `json:"description"`
		Kinds         json.RawMessage            `json:"kinds"`
		Registries    json.RawMessage            `json:"registries"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil || doc.Supported == nil {
		return info, fmt.Errorf(`not a JSON object with a "supported" object`)
	}
	for k, v := range doc.Supported {
		var sources []string
		_ = json.Unmarshal(v, &sources)
		info.addSupported(k, sources)
	}
	var unsupported []string
	_ = json.Unmarshal(doc.Unsupported, &unsupported)
	info.addUnsupported(unsupported)
	info.HashSpellings = doc.HashSpellings
	// Everything but the hash lists, for display.
	info.Meta, _ = json.Marshal(map[string]json.RawMessage{"name": doc.Name, "description": doc.Description,
		"kinds": doc.Kinds, "registries": doc.Registries})
	return info, nil
}

func (info *WellKnownInfo) addSupported(key string, sources []string) {
	d, err := ParseDigest(key)
	if err != nil {
		return
	}
	info.Supported[d] = sources
	info.Keys[d] = key
}

func (info *WellKnownInfo) addUnsupported(hashes []string) {
	for _, h := range hashes {
		if d, err := ParseDigest(h); err == nil {
			info.Unsupported[d] = true
		}
	}
}
