package resolve

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/agora-registry/registry/internal/agent/datauri"
	"github.com/agora-registry/registry/internal/agent/safehttp"
	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/client"
	"github.com/agora-registry/registry/internal/protocol"
)

// DefaultMaxSources caps how many sender-supplied sources one request may
// make us try, so a request cannot turn the agent into a fetch amplifier.
const DefaultMaxSources = 8

// ErrUnresolvable means no cache entry, source or registry produced a
// document with the requested hash.
var ErrUnresolvable = apperr.New(apperr.NotFound, "protocol_unresolvable", "the protocol document could not be obtained")

// Resolver finds verified protocol documents.
type Resolver struct {
	Cache      *Cache
	Fetcher    *safehttp.Client
	Registries []*client.Client
	MaxBytes   int // document size limit; 0 means the protocol default
	MaxSources int // 0 means DefaultMaxSources
	Log        *slog.Logger
}

// Resolved is a verified document and where it came from.
type Resolved struct {
	Document []byte
	Origin   string // "cache", the source URL (data: URIs shortened), or "registry <base>"
}

// Resolve returns the document whose SHA-1 is d: from the cache, else from
// each of sources in order, else from the registries. Whatever is fetched is
// verified (with collision detection) and cached before use.
func (r *Resolver) Resolve(ctx context.Context, d protocol.Digest, sources []string) (Resolved, error) {
	return r.resolve(ctx, d, sources, true)
}

// ResolveTransient is Resolve without caching what it fetches: for hashes
// this agent has no routine for, which any sender can mint by the million.
func (r *Resolver) ResolveTransient(ctx context.Context, d protocol.Digest, sources []string) (Resolved, error) {
	return r.resolve(ctx, d, sources, false)
}

func (r *Resolver) resolve(ctx context.Context, d protocol.Digest, sources []string, keep bool) (Resolved, error) {
	if doc, ok, err := r.Cache.Get(d); err != nil {
		r.log().Warn("cache read failed", "hash", d.Hex(), "err", err)
	} else if ok {
		return Resolved{Document: doc, Origin: "cache"}, nil
	}
	var failures []string
	// The sender reads failures; the log gets the full cause. A registry is
	// named by its place in the config, as its address may be internal.
	fail := func(shown, logged string, err error) {
		failures = append(failures, fmt.Sprintf("%s: %s", shown, errText(err)))
		r.log().Info("protocol source failed", "hash", d.Hex(), "source", logged, "err", err)
	}
	max := r.MaxSources
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
			fail(shortSource(src), safehttp.RedactURL(shortSource(src)), err)
			continue
		}
		return Resolved{Document: doc, Origin: shortSource(src)}, nil
	}
	for i, reg := range r.Registries {
		if ctx.Err() != nil {
			break
		}
		doc, err := r.fromRegistry(ctx, reg, d, keep)
		if err != nil {
			fail(fmt.Sprintf("configured registry %d", i+1), "registry "+safehttp.RedactURL(reg.Origin()), err)
			continue
		}
		return Resolved{Document: doc, Origin: "registry " + reg.Origin()}, nil
	}
	if len(failures) == 0 {
		failures = append(failures, "no sources given and no registry configured")
	}
	return Resolved{}, ErrUnresolvable.With(fmt.Sprintf("protocol %s could not be obtained (%s)", d.Hex(), strings.Join(failures, "; ")))
}

// ErrNotASource refuses a source that is no http(s) URL, no data: URI and
// not the document's own text.
var ErrNotASource = apperr.New(apperr.Invalid, "not_a_source", "neither an http(s) URL, a data: URI, nor the protocol document's text (its SHA-1 differs)")

func (r *Resolver) fetchSource(ctx context.Context, d protocol.Digest, src string) ([]byte, error) {
	if datauri.IsDataURI(src) {
		return datauri.Decode(src, r.maxBytes())
	}
	// Spec v0.2 lets a source hold the document's full text; it is used
	// when it hashes to d (one hashing of bytes the request already carried;
	// accept then checks its size like any document's).
	if protocol.Verify([]byte(src), d) == nil {
		return []byte(src), nil
	}
	if isInlineText(src) {
		return nil, ErrNotASource
	}
	return r.Fetcher.Get(ctx, src, r.maxBytes())
}

// isInlineText tells document text from a URL: a URL has a scheme and no
// line break or space.
func isInlineText(src string) bool {
	scheme, _, ok := strings.Cut(src, ":")
	return !ok || strings.ContainsAny(src, "\n\r\t ") || strings.ContainsAny(scheme, "/#?")
}

// fromRegistry asks the batch-resolve API for sources, tries them, then the
// registry's own raw URL.
func (r *Resolver) fromRegistry(ctx context.Context, reg *client.Client, d protocol.Digest, keep bool) ([]byte, error) {
	results, err := reg.Resolve(ctx, []protocol.Digest{d})
	var tried []string
	if err == nil {
		for _, res := range results {
			if res.Withdrawn {
				return nil, apperr.New(apperr.Gone, "protocol_withdrawn", "withdrawn from the registry")
			}
			if !res.Found {
				return nil, apperr.New(apperr.NotFound, "protocol_not_found", "not found in the registry")
			}
			for _, src := range res.Sources {
				if len(tried) == r.maxSourcesLimit() {
					break
				}
				tried = append(tried, src)
				doc, ferr := r.Fetcher.Get(ctx, src, r.maxBytes())
				if ferr == nil && r.accept(d, doc, keep) == nil {
					return doc, nil
				}
			}
		}
	}
	raw := reg.RawURL(d)
	for _, t := range tried {
		if t == raw {
			return nil, apperr.New(apperr.NotFound, "protocol_not_found", "no registry source had a valid document")
		}
	}
	doc, err := reg.Fetch(ctx, d)
	if err != nil {
		return nil, err
	}
	if err := r.accept(d, doc, keep); err != nil {
		return nil, err
	}
	return doc, nil
}

// accept verifies a candidate document and, if keep, caches it.
func (r *Resolver) accept(d protocol.Digest, doc []byte, keep bool) error {
	if err := protocol.Validate(doc, r.MaxBytes); err != nil {
		return err
	}
	if err := protocol.Verify(doc, d); err != nil {
		return err
	}
	if !keep {
		return nil
	}
	if err := r.Cache.Put(d, doc); err != nil {
		r.log().Warn("cache write failed", "hash", d.Hex(), "err", err)
	}
	return nil
}

// Seed verifies and caches a document the operator supplied (a file named
// in the config), pinned so eviction never drops it, returning its digest.
func (r *Resolver) Seed(doc []byte) (protocol.Digest, error) {
	p, err := protocol.Prepare(doc, r.MaxBytes)
	if err != nil {
		return protocol.Digest{}, err
	}
	return p.Sums.SHA1, r.Cache.Pin(p.Sums.SHA1, doc)
}

func (r *Resolver) maxBytes() int {
	if r.MaxBytes <= 0 {
		return protocol.DefaultMaxDocumentBytes
	}
	return r.MaxBytes
}

func (r *Resolver) maxSourcesLimit() int {
	if r.MaxSources <= 0 {
		return DefaultMaxSources
	}
	return r.MaxSources
}

func (r *Resolver) log() *slog.Logger {
	if r.Log == nil {
		return slog.Default()
	}
	return r.Log
}

func shortSource(src string) string {
	if datauri.IsDataURI(src) {
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
	if e := apperr.As(err); e != nil {
		if e.Code == safehttp.ErrBlocked.Code {
			return safehttp.ErrBlocked.Message // the detail names the address a host name resolved to
		}
		return e.Message
	}
	return "failed"
}
