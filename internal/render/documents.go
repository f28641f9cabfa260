package render

import (
	"context"
	"time"

	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/protocol"
)

// DefaultCacheBytes bounds the renderings kept in memory.
const DefaultCacheBytes = 8 << 20

// maxWait bounds how long a page waits for a rendering slot.
const maxWait = 10 * time.Second

// ErrBusy answers a page that waited too long for a rendering slot.
var ErrBusy = apperr.New(apperr.Unavailable, "render_busy",
	"the registry is busy rendering other documents; try again in a few seconds")

// DocumentsOptions configure Documents; zero values mean the defaults.
type DocumentsOptions struct {
	Slots      int // concurrent renderings; DefaultSlots when 0
	CacheBytes int // DefaultCacheBytes when 0
	// Render replaces the renderer (tests count and hold renderings).
	Render func(doc []byte) (Rendered, error)
}

// Documents renders documents for pages: each published document once
// (its hash names its content forever), every rendering in the pool.
type Documents struct {
	pool     *Pool
	previews *Pool // previews' own slot: a stranger's preview never holds the slot stored documents render in
	cache    *cache
	render   func(doc []byte) (Rendered, error)
}

// NewDocuments returns the page renderer.
func NewDocuments(o DocumentsOptions) *Documents {
	if o.CacheBytes <= 0 {
		o.CacheBytes = DefaultCacheBytes
	}
	if o.Render == nil {
		o.Render = New().Document
	}
	return &Documents{pool: NewPool(o.Slots), previews: NewPool(1), cache: newCache(o.CacheBytes), render: o.Render}
}

// Published renders a stored document, from the cache when it can.
func (d *Documents) Published(ctx context.Context, digest protocol.Digest, doc []byte) (Rendered, error) {
	if out, ok := d.cache.get(digest); ok {
		return out, nil
	}
	return d.inPool(ctx, d.pool, func() (Rendered, error) {
		if out, ok := d.cache.get(digest); ok { // rendered while this one waited
			return out, nil
		}
		out, err := d.render(doc)
		if err == nil {
			d.cache.put(digest, out)
		}
		return out, err
	})
}

// Preview renders a document that is not stored (nothing is cached).
func (d *Documents) Preview(ctx context.Context, doc []byte) (Rendered, error) {
	return d.inPool(ctx, d.previews, func() (Rendered, error) { return d.render(doc) })
}

func (d *Documents) inPool(ctx context.Context, pool *Pool, work func() (Rendered, error)) (Rendered, error) {
	ctx, cancel := context.WithTimeout(ctx, maxWait)
	defer cancel()
	var out Rendered
	var err error
	if perr := pool.Do(ctx, func() { out, err = work() }); perr != nil {
		return Rendered{}, apperr.Wrap(ErrBusy.Kind, ErrBusy.Code, ErrBusy.Message, perr)
	}
	return out, err
}
