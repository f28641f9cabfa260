package agent

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/agent/routine"
	"github.com/agora-registry/registry/internal/protocol"
)

// Agent is a configured receiving agent: the agora package's Handler,
// built from the agent's config file, with the reference routines.
type Agent struct {
	cfg     Config
	handler *agora.Handler
	llm     *routine.LLM // nil when none is configured
	log     *slog.Logger
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
	for _, r := range cfg.Registries {
		if u, err := url.Parse(r); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("registry %q is not an http(s) URL", r)
		}
	}
	if t := cfg.Trust; len(t.LogKeys) == 0 && (len(t.WitnessKeys) > 0 || t.Quorum > 0) {
		return nil, fmt.Errorf("trust.witnessKeys and trust.quorum need trust.logKeys: the logs whose checkpoints the witnesses cosign")
	}
	if len(cfg.Trust.LogKeys) > 0 && len(cfg.Registries) == 0 {
		return nil, fmt.Errorf("trust.logKeys needs registries: proofs are fetched from {registry}/protocol/{hash}.tlog-proof")
	}
	for _, r := range cfg.Announce {
		if _, err := agora.NewRegistry(r, http.DefaultClient); err != nil {
			return nil, fmt.Errorf("announce: %w", err)
		}
	}
	// Registries are the operator's choice, so the resolver trusts them:
	// only their exact host:port is opened in the fetch guard.
	resolver, err := agora.NewResolver(agora.ResolverOptions{
		CacheDir: cfg.CacheDir, MaxCacheBytes: cfg.Limits.MaxCacheBytes,
		MaxDocumentBytes: cfg.Limits.MaxDocumentBytes, MaxSources: cfg.Limits.MaxSources,
		Registries: cfg.Registries, LogKeys: cfg.RegistryLogKeys, Trust: cfg.Trust.policies(), Log: log, Tokens: registryTokens(cfg.Registries),
		Fetch: agora.FetchPolicy{Allow: cfg.Allow, MaxRedirects: cfg.Limits.MaxRedirects, Timeout: cfg.Limits.FetchTimeout},
	})
	if err != nil {
		return nil, err
	}
	a := &Agent{cfg: cfg, log: log}
	opts := agora.Options{
		Name: cfg.Name, Description: cfg.Description, Kinds: cfg.Kinds,
		Registries: a.publicRegistries(), Resolver: resolver, Log: log,
		Limits: agora.Limits{
			MaxRequestBytes: cfg.Limits.MaxRequestBytes, RequestTimeout: cfg.Limits.RequestTimeout,
			PerClientRate: cfg.Limits.PerClientRate, PerClientBurst: cfg.Limits.PerClientBurst,
			PerClientInFlight: cfg.Limits.PerClientInFlight,
		},
		Conversations: agora.ConversationLimits(cfg.Conversations),
		Negotiated:    agora.NegotiatedPolicy(cfg.Negotiated),
	}
	if cfg.LLM.BaseURL != "" {
		a.llm = &routine.LLM{BaseURL: cfg.LLM.BaseURL, Model: cfg.LLM.Model, APIKey: os.Getenv(cfg.LLM.APIKeyEnv), Timeout: cfg.LLM.Timeout}
		opts.LLM = a.llm
	}
	if a.handler, err = agora.NewHandler(opts); err != nil {
		return nil, err
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
		if err := a.handler.Refuse(d); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// publicRegistries are the registry URLs readers of the well-known lists
// can reach: the public ones when configured, else those the agent uses.
func (a *Agent) publicRegistries() []string {
	if len(a.cfg.PublicRegistries) > 0 {
		return a.cfg.PublicRegistries
	}
	return a.cfg.Registries
}

func (a *Agent) addProtocol(p ProtocolConfig) error {
	r, err := a.buildRoutine(p.Routine)
	if err != nil {
		return err
	}
	var d protocol.Digest
	if p.Document != "" {
		raw, err := os.ReadFile(a.cfg.path(p.Document))
		if err != nil {
			return err
		}
		// The registry's full check (front matter included), so a seed the
		// registry would refuse is refused here too.
		if _, err := protocol.Prepare(raw, a.cfg.Limits.MaxDocumentBytes); err != nil {
			return fmt.Errorf("document %s: %w", p.Document, err)
		}
		if d, err = a.handler.HandleDocument(raw, r, p.Sources...); err != nil {
			return fmt.Errorf("document %s: %w", p.Document, err)
		}
	}
	if p.Hash != "" {
		h, err := protocol.ParseDigest(p.Hash)
		if err != nil {
			return fmt.Errorf("hash %q: %w", p.Hash, err)
		}
		if !d.IsZero() && h != d {
			return fmt.Errorf("document %s hashes to %s, not the configured %s", p.Document, d.Hex(), h.Hex())
		}
		if d.IsZero() {
			sources := append([]string(nil), p.Sources...)
			if len(sources) == 0 {
				for _, base := range a.publicRegistries() {
					sources = append(sources, agora.RawURL(base, h))
				}
			}
			a.handler.Handle(h, r, sources...)
		}
		d = h
	}
	if d.IsZero() {
		return fmt.Errorf("a protocol needs a hash or a document")
	}
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

// Handler is the agent's HTTP surface: the agora receiver, a health
// probe, and an access log.
func (a *Agent) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/", a.handler)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte("ok\n"))
	})
	return a.logRequests(mux)
}

// registryTokens gives each configured registry AGENT_REGISTRY_TOKEN (a
// read token of a private registry), sent only to those registries.
func registryTokens(registries []string) map[string]string {
	tok := os.Getenv(RegistryTokenEnv)
	if tok == "" {
		return nil
	}
	m := make(map[string]string, len(registries))
	for _, r := range registries {
		m[r] = tok
	}
	return m
}
