package agora

import (
	"log/slog"
	"time"
)

// Defaults for Options fields left at zero.
const (
	// DefaultMaxRequestBytes lets a document of DefaultMaxDocumentBytes
	// travel inline as the Python SDK sends it (a percent-encoded data: URI
	// triples it), plus 64 KiB for the rest of the transaction.
	DefaultMaxRequestBytes = 3*DefaultMaxDocumentBytes + 64<<10
	DefaultRequestTimeout  = 90 * time.Second
	DefaultPerClientRate   = 20
	DefaultPerClientBurst  = 40
	DefaultPerClientFlight = 4
	DefaultMaxConvs        = 1000
	DefaultConvsPerClient  = 16
	DefaultIdleExpiry      = 10 * time.Minute
	DefaultMaxTurns        = 50
	DefaultMaxHistoryBytes = 256 << 10
	DefaultMaxConvBytes    = 64 << 20
	DefaultMaxLLMOutput    = 1 << 20
)

// Options configure a Handler. The zero value is a working agent with no
// LLM, a resolver caching in ./agora-cache, and the default limits.
type Options struct {
	Name        string   // shown in the well-known documents
	Description string   // shown in the well-known documents
	Kinds       []string // kinds of protocols usually supported, shown in _meta
	// Registries are registry base URLs readers of the well-known
	// documents can reach (listed in /.well-known/agora; documents given to
	// HandleDocument are advertised with their raw URLs there).
	Registries []string
	// Resolver obtains and verifies documents; nil means one made by
	// NewResolver with ResolverOptions{}.
	Resolver *Resolver
	// LLM answers natural-language requests, negotiations, and protocols no
	// routine is registered for (reading the document); nil means none.
	LLM Routine
	// Negotiated says what becomes of protocols negotiated here once they
	// are used: "" or NegotiatedList lists them, NegotiatedIgnore does not.
	Negotiated NegotiatedPolicy
	// MaxNegotiated bounds the negotiated protocols adopted; 0 means
	// DefaultMaxNegotiated.
	MaxNegotiated int
	Limits        Limits
	Conversations ConversationLimits
	Log           *slog.Logger // nil means slog.Default()
}

// Limits bound what one stranger can make the handler do.
type Limits struct {
	MaxRequestBytes int           // request body; 0 means DefaultMaxRequestBytes
	RequestTimeout  time.Duration // one transaction or turn; 0 means DefaultRequestTimeout
	// Per client (IPv4 address or IPv6 /64), checked before the body is read.
	PerClientRate     float64 // requests a second; 0 means DefaultPerClientRate, negative unlimited
	PerClientBurst    int     // 0 means DefaultPerClientBurst
	PerClientInFlight int     // requests in progress at once; 0 means DefaultPerClientFlight
}

// ConversationLimits bound multi-round state.
type ConversationLimits struct {
	Max             int           // open at once; 0 means DefaultMaxConvs
	PerClient       int           // open at once per client address (IPv6: per /64); 0 means DefaultConvsPerClient
	IdleExpiry      time.Duration // 0 means DefaultIdleExpiry
	MaxTurns        int           // history kept per conversation; 0 means DefaultMaxTurns
	MaxHistoryBytes int           // history kept per conversation, oldest turns dropped; 0 means DefaultMaxHistoryBytes
	MaxTotalBytes   int           // documents and histories of all conversations; 0 means DefaultMaxConvBytes
}

func (l Limits) withDefaults() Limits {
	if l.MaxRequestBytes <= 0 {
		l.MaxRequestBytes = DefaultMaxRequestBytes
	}
	if l.RequestTimeout <= 0 {
		l.RequestTimeout = DefaultRequestTimeout
	}
	if l.PerClientRate == 0 {
		l.PerClientRate = DefaultPerClientRate
	}
	if l.PerClientBurst <= 0 {
		l.PerClientBurst = DefaultPerClientBurst
	}
	if l.PerClientInFlight <= 0 {
		l.PerClientInFlight = DefaultPerClientFlight
	}
	return l
}

func (l ConversationLimits) withDefaults() ConversationLimits {
	if l.Max <= 0 {
		l.Max = DefaultMaxConvs
	}
	if l.PerClient <= 0 {
		l.PerClient = DefaultConvsPerClient
	}
	if l.IdleExpiry <= 0 {
		l.IdleExpiry = DefaultIdleExpiry
	}
	if l.MaxTurns <= 0 {
		l.MaxTurns = DefaultMaxTurns
	}
	if l.MaxHistoryBytes <= 0 {
		l.MaxHistoryBytes = DefaultMaxHistoryBytes
	}
	if l.MaxTotalBytes <= 0 {
		l.MaxTotalBytes = DefaultMaxConvBytes
	}
	return l
}
