package directory

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/url"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/store"
)

// ardPaths are where the directory looks for an agent's ARD manifest, the
// first that answers one wins: the ARD draft's ai-catalog well-known URI
// (§6.1), then /.well-known/ard.json.
var ardPaths = []string{"/.well-known/ai-catalog.json", "/.well-known/ard.json"}

var errNotManifest = errors.New("not an ARD manifest (a JSON object with an entries list)")

// parseManifest reads an ARD manifest's host name and entries, streaming
// the entries so that a manifest listing more than store.MaxARDEntries
// keeps only the first ones in memory (all are counted).
func parseManifest(raw []byte) (entity.AgentManifest, error) {
	m := entity.AgentManifest{Entries: []entity.ARDEntry{}}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return m, errNotManifest
	}
	sawEntries := false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return m, errNotManifest
		}
		switch tok {
		case "entries":
			if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
				return m, errNotManifest
			}
			sawEntries = true
			for dec.More() {
				var r json.RawMessage
				if err := dec.Decode(&r); err != nil {
					return m, errNotManifest
				}
				m.EntryCount++
				if len(m.Entries) < store.MaxARDEntries {
					if e, ok := parseEntry(r); ok {
						m.Entries = append(m.Entries, e)
					}
				}
			}
			if _, err := dec.Token(); err != nil {
				return m, errNotManifest
			}
		case "host":
			var h struct{ DisplayName json.RawMessage }
			if err := dec.Decode(&h); err != nil {
				return m, errNotManifest
			}
			m.Host = line(h.DisplayName)
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return m, errNotManifest
			}
		}
	}
	if !sawEntries {
		return m, errNotManifest
	}
	return m, nil
}

// parseEntry reads one catalog entry (ARD §4.2); one without a type or
// without both identifier and name is skipped. url is kept only when it
// is an absolute http(s) URL.
func parseEntry(raw json.RawMessage) (entity.ARDEntry, bool) {
	var e struct {
		Identifier, DisplayName, Type, URL, Description, Tags, Capabilities, Version json.RawMessage
		Data                                                                         json.RawMessage
	}
	if json.Unmarshal(raw, &e) != nil {
		return entity.ARDEntry{}, false
	}
	out := entity.ARDEntry{
		Identifier:   text(e.Identifier, store.MaxAgentURLBytes),
		DisplayName:  line(e.DisplayName),
		Type:         line(e.Type),
		Inline:       len(e.Data) > 0 && string(e.Data) != "null",
		Description:  text(e.Description, store.MaxAgentDescriptionRunes),
		Tags:         words(e.Tags, store.MaxARDEntryTags, store.MaxA2AShortRunes),
		Capabilities: words(e.Capabilities, store.MaxARDEntryTags, store.MaxA2AShortRunes),
		Version:      line(e.Version),
	}
	if u := text(e.URL, store.MaxAgentURLBytes); len(u) <= store.MaxAgentURLBytes {
		if p, err := url.Parse(u); err == nil && (p.Scheme == "http" || p.Scheme == "https") && p.Host != "" {
			out.URL = u
		}
	}
	if out.Type == "" || out.Identifier == "" && out.DisplayName == "" {
		return entity.ARDEntry{}, false
	}
	return out, true
}
