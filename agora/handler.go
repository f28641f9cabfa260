package agora

import (
	"fmt"
	"log/slog"
	"net/http"
	"sort"
	"sync"
)

// Handler is an Agora receiver: an http.Handler that answers transactions
// (POST /), multi-round follow-ups (POST and DELETE /conversations/{id})
// and the well-known documents (GET /.wellknown, /wellknown and
// /.well-known/agora). Register routines with Handle or HandleDocument
// before serving; a Handler is safe for concurrent use once serving.
type Handler struct {
	cfg         Options
	resolver    *Resolver
	llm         Routine // nil when none is configured
	convs       *conversations
	clients     *clientLimits
	log         *slog.Logger
	mux         *http.ServeMux
	mu          sync.RWMutex // guards the three maps, so routines may be added while serving
	routines    map[Digest]Routine
	advertised  map[Digest][]string // hash -> sources, for the well-known documents
	unsupported map[Digest]bool
	meta        map[Digest]ProtocolMeta // front matter of the documents held, for the negotiation prompt
	adopted     int                     // negotiated protocols adopted so far
	adoptedBy   map[string]int          // and by each client
	changed     chan struct{}           // closed, and replaced, when the lists change (Changed)
	negotiators *negotiators
}

// NewHandler builds a receiver. It fails when Options.Negotiated is not a
// known policy, or when Options.Resolver is nil and the default resolver
// cannot open its cache directory.
func NewHandler(o Options) (*Handler, error) {
	if o.Log == nil {
		o.Log = slog.Default()
	}
	o.Limits = o.Limits.withDefaults()
	o.Conversations = o.Conversations.withDefaults()
	o.Registries = trimSlashes(o.Registries)
	switch o.Negotiated {
	case "":
		o.Negotiated = NegotiatedList
	case NegotiatedList, NegotiatedIgnore:
	default:
		return nil, fmt.Errorf("negotiated policy %q is neither %q nor %q", o.Negotiated, NegotiatedList, NegotiatedIgnore)
	}
	if o.MaxNegotiated <= 0 {
		o.MaxNegotiated = DefaultMaxNegotiated
	}
	if o.Resolver == nil {
		r, err := NewResolver(ResolverOptions{Log: o.Log})
		if err != nil {
			return nil, err
		}
		o.Resolver = r
	}
	h := &Handler{
		cfg: o, resolver: o.Resolver, llm: o.LLM, log: o.Log,
		convs:       newConversations(o.Conversations),
		clients:     newClientLimits(o.Limits),
		routines:    map[Digest]Routine{},
		advertised:  map[Digest][]string{},
		unsupported: map[Digest]bool{},
		meta:        map[Digest]ProtocolMeta{},
		adoptedBy:   map[string]int{},
		changed:     make(chan struct{}),
		negotiators: newNegotiators(o.Conversations.Max, o.Conversations.IdleExpiry),
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /{$}", h.limitClients(h.handleTransaction))
	mux.HandleFunc("POST /conversations/{id}", h.limitClients(h.handleFollowUp))
	mux.HandleFunc("DELETE /conversations/{id}", h.limitClients(h.handleEnd))
	mux.HandleFunc("GET /.wellknown", h.serveWellKnown(h.WellKnown))
	mux.HandleFunc("GET /wellknown", h.serveWellKnown(h.StrictWellKnown))
	mux.HandleFunc("GET /.well-known/agora", h.serveWellKnown(h.StructuredWellKnown))
	h.mux = mux
	return h, nil
}

// ServeHTTP answers one request.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// Handle answers the protocol d with r, advertising sources for it in the
// well-known documents. The document itself is fetched from the sender's
// sources (or the resolver's registries) on first use and verified.
func (h *Handler) Handle(d Digest, r Routine, sources ...string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.routines[d] = r
	h.advertised[d] = append([]string{}, sources...)
	delete(h.unsupported, d)
	h.notifyLocked()
}

// HandleDocument answers the protocol document doc with r: it validates
// and hashes doc, pins it in the resolver's cache (so no fetch is ever
// needed), and advertises sources for it; without sources, the raw URLs of
// Options.Registries, else a data: URI of doc. It returns doc's digest.
func (h *Handler) HandleDocument(doc []byte, r Routine, sources ...string) (Digest, error) {
	d, err := h.resolver.Seed(doc)
	if err != nil {
		return Digest{}, err
	}
	if len(sources) == 0 {
		for _, base := range h.cfg.Registries {
			sources = append(sources, RawURL(base, d))
		}
	}
	if len(sources) == 0 {
		sources = []string{DataURI(doc)}
	}
	h.Handle(d, r, sources...)
	h.noteDocument(d, doc)
	return d, nil
}

// Refuse marks d explicitly unsupported: transactions for it are rejected
// without any fetch, and the well-known documents list it as unsupported.
// It fails when a routine is registered for d.
func (h *Handler) Refuse(d Digest) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.routines[d] != nil {
		return fmt.Errorf("protocol %s is both supported and explicitly unsupported", d.Hex())
	}
	if !h.unsupported[d] {
		h.unsupported[d] = true
		h.notifyLocked()
	}
	return nil
}

// Changed returns a channel closed at the next change of the supported or
// unsupported list (a routine registered, a negotiated protocol adopted, a
// hash refused), so an announcer can tell directories what changed. Take
// it before reading the lists: a change after that closes it.
func (h *Handler) Changed() <-chan struct{} {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.changed
}

// notifyLocked wakes whoever waits on Changed; h.mu is held.
func (h *Handler) notifyLocked() {
	close(h.changed)
	h.changed = make(chan struct{})
}

// Supported lists the hashes a routine is registered for, in hex order.
func (h *Handler) Supported() []Digest {
	h.mu.RLock()
	defer h.mu.RUnlock()
	out := make([]Digest, 0, len(h.routines))
	for d := range h.routines {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Hex() < out[j].Hex() })
	return out
}

func (h *Handler) routineFor(d Digest) (r Routine, explicitlyUnsupported bool) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.routines[d], h.unsupported[d]
}

// Bounds returns the limits in force, defaults filled in.
func (h *Handler) Bounds() (Limits, ConversationLimits) { return h.cfg.Limits, h.cfg.Conversations }

func trimSlashes(urls []string) []string {
	out := make([]string, len(urls))
	for i, u := range urls {
		for len(u) > 0 && u[len(u)-1] == '/' {
			u = u[:len(u)-1]
		}
		out[i] = u
	}
	return out
}
