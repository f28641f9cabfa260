package agent

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"sort"

	"github.com/agora-registry/registry/internal/agent/datauri"
	"github.com/agora-registry/registry/internal/agent/resolve"
	"github.com/agora-registry/registry/internal/agent/routine"
	"github.com/agora-registry/registry/internal/agent/safehttp"
	"github.com/agora-registry/registry/internal/client"
	"github.com/agora-registry/registry/internal/protocol"
)

// Agent is a configured receiving agent.
type Agent struct {
	cfg         Config
	resolver    *resolve.Resolver
	routines    map[protocol.Digest]routine.Routine
	advertised  map[protocol.Digest][]string // hash -> sources, for /.wellknown
	unsupported map[protocol.Digest]bool
	llm         *routine.LLM // nil when none is configured
	convs       *Conversations
	clients     *clientLimits
	log         *slog.Logger
}

// New builds an agent from its config: opens the cache, seeds it with the
// configured documents, and wires the routines.
func New(cfg Config, log *slog.Logger) (*Agent, error) {
	cfg = cfg.withDefaults()
	if log == nil {
		log = slog.Default()
	}
	if need := RequestBytesFor(cfg.Limits.MaxDocumentBytes); cfg.Limits.MaxRequestBytes < need {
		log.Warn("limits.maxRequestBytes is below 3 × maxDocumentBytes + 64 KiB: documents near the size limit sent inline by the SDK (percent-encoded data: URI) will be refused",
			"maxRequestBytes", cfg.Limits.MaxRequestBytes, "needed", need)
	}
	for _, r := range cfg.PublicRegistries {
		if u, err := url.Parse(r); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("public registry %q is not an http(s) URL", r)
		}
	}
	allow := append([]string(nil), cfg.Allow...)
	for _, r := range cfg.Registries {
		u, err := url.Parse(r)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("registry %q is not an http(s) URL", r)
		}
		// Registries are the operator's choice, so they are trusted; only
		// their exact host:port is opened.
		allow = append(allow, hostPort(u))
	}
	fetcher, err := safehttp.New(safehttp.Options{Allow: allow, MaxRedirects: cfg.Limits.MaxRedirects, Timeout: cfg.Limits.FetchTimeout})
	if err != nil {
		return nil, err
	}
	cache, err := resolve.OpenCache(cfg.CacheDir, cfg.Limits.MaxDocumentBytes, cfg.Limits.MaxCacheBytes)
	if err != nil {
		return nil, err
	}
	a := &Agent{
		cfg:         cfg,
		routines:    map[protocol.Digest]routine.Routine{},
		advertised:  map[protocol.Digest][]string{},
		unsupported: map[protocol.Digest]bool{},
		convs:       NewConversations(cfg.Conversations),
		clients:     newClientLimits(cfg.Limits),
		log:         log,
		resolver: &resolve.Resolver{Cache: cache, Fetcher: fetcher, MaxBytes: cfg.Limits.MaxDocumentBytes,
			MaxSources: cfg.Limits.MaxSources, Log: log},
	}
	for _, r := range cfg.Registries {
		reg, err := client.New(r, fetcher.HTTP)
		if err != nil {
			return nil, err
		}
		reg.MaxDocumentBytes = cfg.Limits.MaxDocumentBytes
		a.resolver.Registries = append(a.resolver.Registries, reg)
	}
	if cfg.LLM.BaseURL != "" {
		a.llm = &routine.LLM{BaseURL: cfg.LLM.BaseURL, Model: cfg.LLM.Model, APIKey: os.Getenv(cfg.LLM.APIKeyEnv), Timeout: cfg.LLM.Timeout}
	}
	for i, p := range cfg.Protocols {
		if err := a.addProtocol(p); err != nil {
			return nil, fmt.Errorf("protocols[%d]: %w", i, err)
		}
	}
	for _, h := range cfg.Unsupported {
		d, err := protocol.ParseDigest(h)
		if err != nil {
			return nil, fmt.Errorf("unsupported %q: %w", h, err)
		}
		if a.routines[d] != nil {
			return nil, fmt.Errorf("protocol %s is both supported and explicitly unsupported", d.Hex())
		}
		a.unsupported[d] = true
	}
	return a, nil
}

func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	if u.Scheme == "https" {
		return u.Hostname() + ":443"
	}
	return u.Hostname() + ":80"
}

func (a *Agent) addProtocol(p ProtocolConfig) error {
	var d protocol.Digest
	var doc []byte
	if p.Document != "" {
		raw, err := os.ReadFile(a.cfg.path(p.Document))
		if err != nil {
			return err
		}
		if d, err = a.resolver.Seed(raw); err != nil {
			return fmt.Errorf("document %s: %w", p.Document, err)
		}
		doc = raw
	}
	if p.Hash != "" {
		h, err := protocol.ParseDigest(p.Hash)
		if err != nil {
			return fmt.Errorf("hash %q: %w", p.Hash, err)
		}
		if doc != nil && h != d {
			return fmt.Errorf("document %s hashes to %s, not the configured %s", p.Document, d.Hex(), h.Hex())
		}
		d = h
	}
	if d.IsZero() {
		return fmt.Errorf("a protocol needs a hash or a document")
	}
	r, err := a.buildRoutine(p.Routine)
	if err != nil {
		return err
	}
	a.routines[d] = r
	sources := append([]string(nil), p.Sources...)
	if len(sources) == 0 {
		for _, base := range a.publicRegistries() {
			sources = append(sources, client.RawURL(base, d))
		}
	}
	if len(sources) == 0 && doc != nil {
		sources = []string{datauri.EncodeBase64(doc)}
	}
	a.advertised[d] = sources
	return nil
}

func (a *Agent) buildRoutine(rc RoutineConfig) (routine.Routine, error) {
	n := 0
	var r routine.Routine
	if rc.Builtin != "" {
		n++
		switch rc.Builtin {
		case "weather":
			r = routine.Weather{}
		default:
			return nil, fmt.Errorf("unknown builtin routine %q (known: weather)", rc.Builtin)
		}
	}
	if rc.Exec != nil {
		n++
		if rc.Exec.Command == "" {
			return nil, fmt.Errorf("exec routine without a command")
		}
		r = &routine.Exec{Command: rc.Exec.Command, Args: rc.Exec.Args, Dir: a.cfg.path(rc.Exec.Dir), Env: rc.Exec.Env,
			Timeout: rc.Exec.Timeout, MaxOutput: rc.Exec.MaxOutputBytes}
	}
	if rc.HTTP != nil {
		n++
		u, err := url.Parse(rc.HTTP.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
			return nil, fmt.Errorf("http routine URL %q is not http(s)", rc.HTTP.URL)
		}
		r = &routine.HTTP{URL: rc.HTTP.URL, Timeout: rc.HTTP.Timeout, MaxResponse: rc.HTTP.MaxResponseBytes}
	}
	if rc.LLM {
		n++
		r = routine.Func(func(ctx context.Context, req routine.Request) (string, error) {
			return a.llm.Answer(ctx, req)
		})
	}
	if n != 1 {
		return nil, fmt.Errorf("a routine needs exactly one of builtin, exec, http or llm (found %d)", n)
	}
	return r, nil
}

// Supported lists the supported hashes in hex order (for logs and tests).
func (a *Agent) Supported() []protocol.Digest {
	out := make([]protocol.Digest, 0, len(a.routines))
	for d := range a.routines {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Hex() < out[j].Hex() })
	return out
}

// Handler is the agent's HTTP surface.
func (a *Agent) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /{$}", a.limitClients(a.handleTransaction))
	mux.HandleFunc("POST /conversations/{id}", a.limitClients(a.handleFollowUp))
	mux.HandleFunc("DELETE /conversations/{id}", a.limitClients(a.handleEnd))
	mux.HandleFunc("GET /.wellknown", a.serveWellKnown(a.WellKnown))
	mux.HandleFunc("GET /wellknown", a.serveWellKnown(a.StrictWellKnown))
	mux.HandleFunc("GET /.well-known/agora", a.serveWellKnown(a.StructuredWellKnown))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte("ok\n"))
	})
	return a.logRequests(mux)
}
