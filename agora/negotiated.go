package agora

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// NegotiatedPolicy says what a Handler does with a protocol negotiated in
// one of its negotiation conversations once the sender first uses it.
type NegotiatedPolicy string

// The policies. The zero value is NegotiatedList.
const (
	// NegotiatedList answers it through the LLM routine, caches its
	// document and lists it in the well-known documents from then on.
	NegotiatedList NegotiatedPolicy = "list"
	// NegotiatedIgnore answers it through the LLM as any unknown protocol:
	// its document is not kept and it is not listed.
	NegotiatedIgnore NegotiatedPolicy = "ignore"
)

// DefaultMaxNegotiated bounds how many negotiated protocols a Handler
// adopts (lists, and keeps a routine for) in its lifetime.
const DefaultMaxNegotiated = 100

// MaxAdoptedPerClient bounds the adoptions one client (see clientKey)
// earns, so one sender negotiating again and again cannot take the whole
// lifetime budget (and the negotiation prompt's list) from the others.
const MaxAdoptedPerClient = 5

// maxListedInPrompt bounds the protocols described to the negotiating
// model, so the prompt's size does not grow with the agent's table.
const maxListedInPrompt = 50

// negotiators remembers which clients negotiated recently. The receiver
// never sees the agreed document (the sender's model writes it last and
// sends it to no one), so the first protocol such a client uses within the
// window is taken as the negotiated one: one negotiation adopts at most
// one protocol, and a client that never negotiated adopts none.
type negotiators struct {
	mu     sync.Mutex
	until  map[string]time.Time // client -> end of its window
	max    int                  // clients remembered at once
	window time.Duration
}

func newNegotiators(max int, window time.Duration) *negotiators {
	return &negotiators{until: map[string]time.Time{}, max: max, window: window}
}

// record opens or extends client's window. When max clients are
// remembered and none has expired, the newcomer is not: it then negotiates
// as before but adopts nothing.
func (n *negotiators) record(client string, now time.Time) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if _, ok := n.until[client]; !ok && len(n.until) >= n.max {
		for c, t := range n.until {
			if now.After(t) {
				delete(n.until, c)
			}
		}
		if len(n.until) >= n.max {
			return
		}
	}
	n.until[client] = now.Add(n.window)
}

func (n *negotiators) has(client string, now time.Time) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	t, ok := n.until[client]
	return ok && !now.After(t)
}

// take spends client's window.
func (n *negotiators) take(client string, now time.Time) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	t, ok := n.until[client]
	delete(n.until, client)
	return ok && !now.After(t)
}

// adoptsNegotiated reports whether the unknown protocol a client asks for
// is to be taken as one it negotiated here.
func (a *Handler) adoptsNegotiated(client string) bool {
	if a.cfg.Negotiated == NegotiatedIgnore || a.llm == nil || !a.negotiators.has(client, a.convs.now()) {
		return false
	}
	a.mu.RLock()
	defer a.mu.RUnlock()
	return a.adopted < a.cfg.MaxNegotiated && a.adoptedBy[client] < MaxAdoptedPerClient
}

// maxAdvertisedInline bounds the document an adopted protocol is
// advertised with as a data: URI. Every GET of a well-known document
// encodes every advertised source, so large inline documents a sender
// chose would make each of those cheap requests cost megabytes (and push
// the listing past what readers take).
const maxAdvertisedInline = 8 << 10

// adopt registers the LLM for a negotiated protocol and advertises the
// source it was verified from when that is a URL, else a data: URI of a
// document of at most maxAdvertisedInline bytes, else no source.
func (a *Handler) adopt(client string, d Digest, doc Resolved, sources []string) {
	if !a.negotiators.take(client, a.convs.now()) {
		return
	}
	var advertised []string
	if len(doc.Document) <= maxAdvertisedInline {
		advertised = []string{DataURI(doc.Document)}
	}
	for _, s := range sources {
		if s == doc.Origin && (strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://")) {
			advertised = []string{s}
			break
		}
	}
	a.mu.Lock()
	if a.adopted >= a.cfg.MaxNegotiated || a.adoptedBy[client] >= MaxAdoptedPerClient || a.routines[d] != nil || a.unsupported[d] {
		a.mu.Unlock()
		return
	}
	a.adopted++
	a.adoptedBy[client]++ // at most MaxNegotiated entries: each holds an adoption
	a.mu.Unlock()
	a.Handle(d, a.llm, advertised...)
	a.noteDocument(d, doc.Document)
	source := "none"
	if len(advertised) > 0 {
		source = advertised[0][:min(len(advertised[0]), 200)]
	}
	a.log.Info("negotiated protocol adopted", "hash", d.Hex(), "source", source)
}

// noteDocument keeps what a document's front matter says, to describe the
// agent's protocols to a negotiating model.
func (a *Handler) noteDocument(d Digest, doc []byte) {
	meta, err := ParseProtocolMeta(doc)
	if err != nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.meta[d] = meta
}

// agentDescription is the additional information a negotiating model
// gets: who this agent is and the protocols it already answers.
func (a *Handler) agentDescription() string {
	var b strings.Builder
	fmt.Fprintf(&b, "The service is the Agora agent %q", a.cfg.Name)
	if a.cfg.Description != "" {
		fmt.Fprintf(&b, ": %s", a.cfg.Description)
	}
	b.WriteString(".\n")
	if len(a.cfg.Kinds) > 0 {
		fmt.Fprintf(&b, "It usually supports protocols of these kinds: %s.\n", strings.Join(a.cfg.Kinds, ", "))
	}
	a.mu.RLock()
	defer a.mu.RUnlock()
	if len(a.routines) == 0 {
		b.WriteString("It answers no protocol yet.")
		return b.String()
	}
	hashes := make([]Digest, 0, len(a.routines))
	for d := range a.routines {
		hashes = append(hashes, d)
	}
	sort.Slice(hashes, func(i, j int) bool { return hashes[i].Hex() < hashes[j].Hex() })
	b.WriteString("It already answers these protocols (if one fits the task, propose it rather than a new one):\n")
	for i, d := range hashes {
		if i == maxListedInPrompt {
			fmt.Fprintf(&b, "- and %d more\n", len(hashes)-i)
			break
		}
		if m, ok := a.meta[d]; ok {
			fmt.Fprintf(&b, "- %s: %s (hash %s)\n", clip(m.Name), clip(m.Description), d.Hex())
		} else {
			fmt.Fprintf(&b, "- protocol %s\n", d.Hex())
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// clip shortens front-matter text for the prompt.
func clip(s string) string {
	const max = 200
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
