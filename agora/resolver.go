package agora

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// DefaultMaxSources caps how many sender-supplied sources one request may
// make us try, so a request cannot turn the agent into a fetch amplifier.
const DefaultMaxSources = 8

// ErrUnresolvable means no cache entry, source or registry produced a
// document with the requested hash.
var ErrUnresolvable = newError(KindNotFound, "protocol_unresolvable", "the protocol document could not be obtained")

// Resolver finds verified protocol documents: from its disk cache, the
// sender's sources (http(s) URLs through the SSRF-guarded fetcher, data:
// URIs, inline text), then its registries. Every document is checked
// against its hash, with SHA-1 collision detection, before use.
type Resolver struct {
	cache      *Cache
	fetcher    *Fetcher
	registries []*Registry
	logs       map[*Registry]*pinnedLog // registries with a pinned log key
	trust      *trusted                 // with ResolverOptions.Trust: proofs required
	maxDoc     int                      // document size limit; 0 means DefaultMaxDocumentBytes
	maxSources int                      // 0 means DefaultMaxSources
	logger     *slog.Logger
}

// ResolverOptions configure NewResolver. The zero value caches in
// ./agora-cache, asks no registry and fetches only public addresses.
type ResolverOptions struct {
	CacheDir         string // default "agora-cache"
	MaxCacheBytes    int    // default DefaultMaxCacheBytes, least recently used evicted
	MaxDocumentBytes int    // default DefaultMaxDocumentBytes
	MaxSources       int    // sources tried per request; default DefaultMaxSources
	// Registries are trusted registry base URLs asked when the sender's
	// sources fail; their exact host:port is opened in the fetch guard.
	Registries []string
	// LogKeys pin a registry's transparency-log verifier key (note format,
	// as /.well-known/agora announces it), by registry base URL (one of
	// Registries): a document from that registry is accepted only with a
	// valid proof that its log includes the document's publish record,
	// else it fails with ErrUnproved.
	LogKeys map[string]string
	// Trust, when set, makes every document need a c2sp.org/tlog-proof
	// from one of these logs (each with its witness quorum), fetched from
	// the registries' {registry}/protocol/{hash}.tlog-proof, whatever
	// source the bytes came from (a sender's URL or data: URI, the cache,
	// a registry); without one it fails with ErrUnproved. Documents the
	// operator seeds (Seed, Handler.HandleDocument) are taken as given.
	Trust []WitnessPolicy
	// Tokens are bearer tokens by registry base URL (one of Registries),
	// for private registries: sent to that registry's API, and with a
	// sender's source URL only when it is on the same origin (scheme,
	// host, port); never to another host, redirects included.
	Tokens map[string]string
	Fetch  FetchPolicy
	Log    *slog.Logger
}

// DefaultCacheDir is where a Resolver caches documents by default.
const DefaultCacheDir = "agora-cache"

// NewResolver opens the cache and builds the guarded fetcher and the
// registry clients.
func NewResolver(o ResolverOptions) (*Resolver, error) {
	if o.CacheDir == "" {
		o.CacheDir = DefaultCacheDir
	}
	if o.MaxDocumentBytes <= 0 {
		o.MaxDocumentBytes = DefaultMaxDocumentBytes
	}
	policy := o.Fetch
	policy.Allow = append([]string(nil), policy.Allow...)
	for _, base := range o.Registries {
		u, err := url.Parse(base)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, ErrRegistryURL.With(fmt.Sprintf("registry %q is not an http(s) URL", base))
		}
		policy.Allow = append(policy.Allow, hostPort(u))
	}
	f, err := NewFetcher(policy)
	if err != nil {
		return nil, err
	}
	cache, err := OpenCache(o.CacheDir, o.MaxDocumentBytes, o.MaxCacheBytes)
	if err != nil {
		return nil, err
	}
	r := &Resolver{cache: cache, fetcher: f, maxDoc: o.MaxDocumentBytes, maxSources: o.MaxSources, logger: o.Log}
	for base := range o.Tokens {
		if !slices.Contains(o.Registries, base) {
			return nil, ErrRegistryURL.With(fmt.Sprintf("a token is given for %q, which is not one of the registries", base))
		}
	}
	for _, base := range o.Registries {
		reg, err := NewRegistry(base, f.HTTP)
		if err != nil {
			return nil, err
		}
		reg.MaxDocumentBytes = o.MaxDocumentBytes
		reg.Token = o.Tokens[base]
		r.registries = append(r.registries, reg)
	}
	if r.logs, err = pinLogs(o.LogKeys, r.registries); err != nil {
		return nil, err
	}
	if r.trust, err = newTrusted(o.Trust); err != nil {
		return nil, err
	}
	return r, nil
}

// hostPort is u's host with its port made explicit, as the guard matches.
func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	if u.Scheme == "https" {
		return u.Hostname() + ":443"
	}
	return u.Hostname() + ":80"
}

// HTTPClient is the guarded client the resolver fetches through (the
// allow-list includes its registries), for a sender's own registry calls.
func (r *Resolver) HTTPClient() *http.Client { return r.fetcher.HTTP }

// Registries are the resolver's registry clients, in order.
func (r *Resolver) Registries() []*Registry { return append([]*Registry(nil), r.registries...) }

// Resolved is a verified document and where it came from.
type Resolved struct {
	Document []byte
	Origin   string // "cache", the source URL (data: URIs shortened), or "registry <base>"
	// Deprecation is set when the registry the document came from says it
	// is deprecated (the resolver also logs it); nil otherwise, and for
	// documents from the cache or the sender's sources.
	Deprecation *Deprecation
}

// Resolve returns the document whose SHA-1 is d: from the cache, else from
// each of sources in order, else from the registries. Whatever is fetched is
// verified (with collision detection) and cached before use.
func (r *Resolver) Resolve(ctx context.Context, d Digest, sources []string) (Resolved, error) {
	return r.resolve(ctx, d, sources, true)
}

// ResolveTransient is Resolve without caching what it fetches: for hashes
// this agent has no routine for, which any sender can mint by the million.
func (r *Resolver) ResolveTransient(ctx context.Context, d Digest, sources []string) (Resolved, error) {
	return r.resolve(ctx, d, sources, false)
}

func (r *Resolver) resolve(ctx context.Context, d Digest, sources []string, keep bool) (Resolved, error) {
	if r.trust == nil {
		return r.obtain(ctx, d, sources, keep)
	}
	// Nothing is cached before it is proved.
	res, err := r.obtain(ctx, d, sources, false)
	if err != nil {
		return res, err
	}
	if err := r.requireProof(ctx, d, res.Document); err != nil {
		return Resolved{}, err
	}
	if keep && res.Origin != "cache" {
		r.keep(d, res.Document)
	}
	return res, nil
}

// obtain finds the document's verified bytes (and, with keep, caches them).
func (r *Resolver) obtain(ctx context.Context, d Digest, sources []string, keep bool) (Resolved, error) {
	if doc, ok, err := r.cache.Get(d); err != nil {
		r.log().Warn("cache read failed", "hash", d.Hex(), "err", err)
	} else if ok {
		return Resolved{Document: doc, Origin: "cache"}, nil
	}
	var (
		failures []string
		unproved bool
	)
	// The sender reads failures; the log gets the full cause. A registry is
	// named by its place in the config, as its address may be internal.
	fail := func(shown, logged string, err error) {
		unproved = unproved || errors.Is(err, ErrUnproved)
		failures = append(failures, fmt.Sprintf("%s: %s", shown, errText(err)))
		r.log().Info("protocol source failed", "hash", d.Hex(), "source", logged, "err", err)
	}
	max := r.maxSources
	if max <= 0 {
		max = DefaultMaxSources
	}
	for i, src := range sources {
		if i == max {
			failures = append(failures, fmt.Sprintf("%d further sources ignored (limit %d)", len(sources)-max, max))
			break
		}
		if ctx.Err() != nil {
			break
		}
		doc, err := r.fetchSource(ctx, d, src)
		if err == nil {
			err = r.accept(d, doc, keep)
		}
		if err != nil {
			fail(shortSource(src), RedactURL(shortSource(src)), err)
			continue
		}
		return Resolved{Document: doc, Origin: shortSource(src)}, nil
	}
	for i, reg := range r.registries {
		if ctx.Err() != nil {
			break
		}
		doc, dep, err := r.fromRegistry(ctx, reg, d, keep)
		if err != nil {
			fail(fmt.Sprintf("configured registry %d", i+1), "registry "+RedactURL(reg.Origin()), err)
			continue
		}
		if dep != nil {
			r.logDeprecation(d, dep)
		}
		return Resolved{Document: doc, Origin: "registry " + reg.Origin(), Deprecation: dep}, nil
	}
	if len(failures) == 0 {
		failures = append(failures, "no sources given and no registry configured")
	}
	why := fmt.Sprintf("protocol %s could not be obtained (%s)", d.Hex(), strings.Join(failures, "; "))
	if unproved { // a pinned registry had it but could not prove it: say so
		return Resolved{}, ErrUnproved.With(why)
	}
	return Resolved{}, ErrUnresolvable.With(why)
}

// ErrNotASource refuses a source that is no http(s) URL, no data: URI and
// not the document's own text.
var ErrNotASource = newError(KindInvalid, "not_a_source", "neither an http(s) URL, a data: URI, nor the protocol document's text (its SHA-1 differs)")

func (r *Resolver) fetchSource(ctx context.Context, d Digest, src string) ([]byte, error) {
	if isDataURI(src) {
		return decodeDataURI(src, r.maxBytes())
	}
	// Spec v0.2 lets a source hold the document's full text; it is used
	// when it hashes to d (one hashing of bytes the request already carried;
	// accept then checks its size like any document's).
	if Verify([]byte(src), d) == nil {
		return []byte(src), nil
	}
	if isInlineText(src) {
		return nil, ErrNotASource
	}
	return r.getSource(ctx, src)
}

// getSource fetches a source URL, with the token of the registry on its
// origin, if any.
func (r *Resolver) getSource(ctx context.Context, src string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, src, nil)
	if err != nil {
		return nil, ErrFetchScheme.With("malformed URL")
	}
	req.Header.Set("Accept", "text/plain, text/markdown, */*;q=0.5")
	for _, reg := range r.registries {
		if reg.Token == "" {
			continue
		}
		if o, err := url.Parse(reg.Origin()); err == nil && sameOrigin(req.URL, o) {
			req.Header.Set("Authorization", "Bearer "+reg.Token)
			break
		}
	}
	return r.fetcher.Do(req, r.maxBytes())
}

// isInlineText tells document text from a URL: a URL has a scheme and no
// line break or space.
func isInlineText(src string) bool {
	scheme, _, ok := strings.Cut(src, ":")
	return !ok || strings.ContainsAny(src, "\n\r\t ") || strings.ContainsAny(scheme, "/#?")
}

// fromRegistry obtains a document through a registry and, when its log
// key is pinned, proves it in the registry's log before it is cached.
func (r *Resolver) fromRegistry(ctx context.Context, reg *Registry, d Digest, keep bool) ([]byte, *Deprecation, error) {
	doc, dep, err := r.fetchFromRegistry(ctx, reg, d)
	if err != nil {
		return nil, nil, err
	}
	if l := r.logs[reg]; l != nil {
		if err := l.prove(ctx, d, doc); err != nil {
			return nil, nil, err
		}
	}
	if keep {
		r.keep(d, doc)
	}
	return doc, dep, nil
}

// fetchFromRegistry asks the batch-resolve API for sources (and the
// document's lifecycle), tries them, then the registry's own raw URL; the
// document it returns is verified, not yet cached.
func (r *Resolver) fetchFromRegistry(ctx context.Context, reg *Registry, d Digest) ([]byte, *Deprecation, error) {
	results, err := reg.Resolve(ctx, []Digest{d})
	var (
		tried []string
		dep   *Deprecation
	)
	if err == nil {
		for _, res := range results {
			if res.Withdrawn {
				return nil, nil, newError(KindGone, "protocol_withdrawn", "withdrawn from the registry")
			}
			if !res.Found {
				return nil, nil, newError(KindNotFound, "protocol_not_found", "not found in the registry")
			}
			dep = res.deprecation(reg.Origin())
			for _, src := range res.Sources {
				if len(tried) == r.maxSourcesLimit() {
					break
				}
				tried = append(tried, src)
				doc, ferr := r.getSource(ctx, src)
				if ferr == nil && r.accept(d, doc, false) == nil {
					return doc, dep, nil
				}
			}
		}
	}
	raw := reg.RawURL(d)
	for _, t := range tried {
		if t == raw {
			return nil, nil, newError(KindNotFound, "protocol_not_found", "no registry source had a valid document")
		}
	}
	doc, err := reg.Fetch(ctx, d)
	if err != nil {
		return nil, nil, err
	}
	if err := r.accept(d, doc, false); err != nil {
		return nil, nil, err
	}
	return doc, dep, nil
}

// logDeprecation tells the operator that a document this agent now uses
// is deprecated, and what its publisher says to use instead.
func (r *Resolver) logDeprecation(d Digest, dep *Deprecation) {
	attrs := []any{"hash", d.Hex(), "message", dep.Message, "registry", RedactURL(dep.Registry)}
	if dep.Replacement != nil {
		attrs = append(attrs, "replacement", dep.Replacement.Hex())
	}
	r.log().Warn("protocol deprecated", attrs...)
}

// accept verifies a candidate document and, if keep, caches it.
func (r *Resolver) accept(d Digest, doc []byte, keep bool) error {
	if err := Validate(doc, r.maxDoc); err != nil {
		return err
	}
	if err := Verify(doc, d); err != nil {
		return err
	}
	if keep {
		r.keep(d, doc)
	}
	return nil
}

// keep caches a verified document; a failure only costs a later fetch.
func (r *Resolver) keep(d Digest, doc []byte) {
	if err := r.cache.Put(d, doc); err != nil {
		r.log().Warn("cache write failed", "hash", d.Hex(), "err", err)
	}
}

// Seed verifies and caches a document the operator supplied (a file named
// in the config), pinned so eviction never drops it, returning its digest.
func (r *Resolver) Seed(doc []byte) (Digest, error) {
	if err := Validate(doc, r.maxDoc); err != nil {
		return Digest{}, err
	}
	sums, err := Hash(doc)
	if err != nil {
		return Digest{}, err
	}
	if r.trust != nil {
		r.trust.seed(sums.SHA1)
	}
	return sums.SHA1, r.cache.Pin(sums.SHA1, doc)
}

func (r *Resolver) maxBytes() int {
	if r.maxDoc <= 0 {
		return DefaultMaxDocumentBytes
	}
	return r.maxDoc
}

func (r *Resolver) maxSourcesLimit() int {
	if r.maxSources <= 0 {
		return DefaultMaxSources
	}
	return r.maxSources
}

func (r *Resolver) log() *slog.Logger {
	if r.logger == nil {
		return slog.Default()
	}
	return r.logger
}

func shortSource(src string) string {
	if isDataURI(src) {
		return "data: URI"
	}
	if isInlineText(src) {
		return "inline text"
	}
	if len(src) > 200 {
		return src[:200] + "…"
	}
	return src
}

// errText is what the sender is told about one failed source: a
// classified error's message, never a raw Go error (those name local
// addresses and the agent's DNS resolver).
func errText(err error) string {
	if e := asError(err); e != nil {
		if e.Code == ErrFetchBlocked.Code {
			return ErrFetchBlocked.Message // the detail names the address a host name resolved to
		}
		return e.Message
	}
	return "failed"
}
