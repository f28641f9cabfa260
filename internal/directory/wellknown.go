package directory

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// wellKnownPaths are read in this order; the first that answers a JSON
// object of its shape is the agent's list.
var wellKnownPaths = []struct {
	path  string
	parse func([]byte) (entity.AgentCrawl, error)
}{
	{"/.well-known/agora", parseStructured}, // RFC 8615: {"supported": {hash: sources}, "unsupported": [...], name, ...}
	{"/.wellknown", parseFlat},              // the seed's: hash -> sources, plus "_meta" and "_unsupported"
	{"/wellknown", parseFlat},               // spec v0.2: hash -> sources only
}

var errNotObject = errors.New("not a JSON object of the well-known shape")

// parseStructured reads /.well-known/agora.
func parseStructured(raw []byte) (entity.AgentCrawl, error) {
	var doc struct {
		Supported   map[string]json.RawMessage `json:"supported"`
		Unsupported json.RawMessage            `json:"unsupported"`
		Name        json.RawMessage            `json:"name"`
		Description json.RawMessage            `json:"description"`
		Kinds       json.RawMessage            `json:"kinds"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil || doc.Supported == nil {
		return entity.AgentCrawl{}, errNotObject
	}
	var l lists
	for k, v := range doc.Supported {
		l.supported(k, v)
	}
	l.unsupported(doc.Unsupported)
	c := l.crawl()
	c.Name, c.Description, c.Kinds = text(doc.Name, store.MaxAgentNameRunes), text(doc.Description, store.MaxAgentDescriptionRunes), kinds(doc.Kinds)
	return c, nil
}

// parseFlat reads /.wellknown and /wellknown: every key that is a hash is
// a supported protocol; "_meta" and "_unsupported" are the seed's extras.
func parseFlat(raw []byte) (entity.AgentCrawl, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return entity.AgentCrawl{}, errNotObject
	}
	var (
		l    lists
		meta struct {
			Name        json.RawMessage `json:"name"`
			Description json.RawMessage `json:"description"`
			Kinds       json.RawMessage `json:"kinds"`
		}
	)
	for k, v := range fields {
		switch k {
		case "_meta":
			_ = json.Unmarshal(v, &meta)
		case "_unsupported":
			l.unsupported(v)
		default:
			l.supported(k, v)
		}
	}
	c := l.crawl()
	c.Name, c.Description, c.Kinds = text(meta.Name, store.MaxAgentNameRunes), text(meta.Description, store.MaxAgentDescriptionRunes), kinds(meta.Kinds)
	return c, nil
}

// lists gathers hashes in any order; crawl sorts and cuts them to the
// directory's limits, so the same list always keeps the same hashes.
type lists struct {
	sup   map[protocol.Digest][]string
	unsup map[protocol.Digest]bool
}

func (l *lists) supported(key string, v json.RawMessage) {
	d, err := protocol.ParseDigest(key)
	if err != nil {
		return // not a hash: skipped, as spec readers do
	}
	var raw []json.RawMessage
	_ = json.Unmarshal(v, &raw)
	var sources []string
	for _, r := range raw {
		var s string
		if json.Unmarshal(r, &s) == nil && s != "" && len(s) <= store.MaxAgentSourceBytes && utf8.ValidString(s) {
			sources = append(sources, s)
		}
		if len(sources) == store.MaxAgentSources {
			break
		}
	}
	if l.sup == nil {
		l.sup = map[protocol.Digest][]string{}
	}
	l.sup[d] = sources
}

func (l *lists) unsupported(v json.RawMessage) {
	var hashes []json.RawMessage
	_ = json.Unmarshal(v, &hashes)
	for _, r := range hashes {
		var h string
		if json.Unmarshal(r, &h) != nil {
			continue
		}
		if d, err := protocol.ParseDigest(h); err == nil {
			if l.unsup == nil {
				l.unsup = map[protocol.Digest]bool{}
			}
			l.unsup[d] = true
		}
	}
}

// crawl lists the hashes by hex, at most store.MaxAgentProtocols each; a
// hash listed both ways counts as supported.
func (l *lists) crawl() entity.AgentCrawl {
	c := entity.AgentCrawl{Supported: []entity.AgentProtocol{}, Unsupported: []protocol.Digest{}}
	for d, sources := range l.sup {
		c.Supported = append(c.Supported, entity.AgentProtocol{Digest: d, Sources: sources})
	}
	slices.SortFunc(c.Supported, func(a, b entity.AgentProtocol) int { return strings.Compare(a.Digest.Hex(), b.Digest.Hex()) })
	c.Supported = c.Supported[:min(len(c.Supported), store.MaxAgentProtocols)]
	for d := range l.unsup {
		if _, both := l.sup[d]; !both {
			c.Unsupported = append(c.Unsupported, d)
		}
	}
	slices.SortFunc(c.Unsupported, func(a, b protocol.Digest) int { return strings.Compare(a.Hex(), b.Hex()) })
	c.Unsupported = c.Unsupported[:min(len(c.Unsupported), store.MaxAgentProtocols)]
	return c
}

// text reads a JSON string, cleaned for display and cut to n runes.
func text(raw json.RawMessage, n int) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	s = strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\n' || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return -1 // no control characters from a stranger
		}
		return r
	}, strings.ToValidUTF8(s, ""))
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) > n {
		s = string([]rune(s)[:n])
	}
	return s
}

// kinds reads a JSON list of kinds: distinct, non-empty, cut to limits.
func kinds(raw json.RawMessage) []string {
	var list []json.RawMessage
	_ = json.Unmarshal(raw, &list)
	out := []string{}
	for _, r := range list {
		k := text(r, store.MaxAgentKindRunes)
		if k != "" && !strings.Contains(k, "\n") && !slices.Contains(out, k) {
			out = append(out, k)
		}
		if len(out) == store.MaxAgentKinds {
			break
		}
	}
	return out
}
