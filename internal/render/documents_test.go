package render

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agora-registry/registry/internal/protocol"
)

// heldRenderer counts renderings; the first `hold` wait for release.
type heldRenderer struct {
	calls, inFlight, most atomic.Int32
	hold                  int32
	entered               chan struct{}
	release               chan struct{}
}

func newHeldRenderer(hold int32) *heldRenderer {
	return &heldRenderer{hold: hold, entered: make(chan struct{}, 16), release: make(chan struct{})}
}

func (h *heldRenderer) render(doc []byte) (Rendered, error) {
	n := h.calls.Add(1)
	now := h.inFlight.Add(1)
	defer h.inFlight.Add(-1)
	for m := h.most.Load(); now > m && !h.most.CompareAndSwap(m, now); m = h.most.Load() {
	}
	h.entered <- struct{}{}
	if n <= h.hold {
		<-h.release
	}
	return Rendered{HTML: append([]byte("<p>"), doc...)}, nil
}

// With every slot held, another rendering does not start: it waits, and
// gives up with render_busy when its request does. No timing involved.
func TestRenderingsAreBoundedByThePool(t *testing.T) {
	h := newHeldRenderer(2)
	d := NewDocuments(DocumentsOptions{Slots: 2, Render: h.render})
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Go(func() {
			if _, err := d.Published(context.Background(), protocol.Digest{byte(i + 1)}, fmt.Appendf(nil, "doc %d", i)); err != nil {
				t.Error(err)
			}
		})
	}
	<-h.entered
	<-h.entered
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := d.Published(gone, protocol.Digest{9}, []byte("third")); !errors.Is(err, ErrBusy) {
		t.Fatalf("a third rendering with both slots held: %v, want %s", err, ErrBusy.Code)
	}
	if got := h.calls.Load(); got != 2 {
		t.Fatalf("%d renderings started with 2 slots", got)
	}
	close(h.release)
	wg.Wait()
	if _, err := d.Published(context.Background(), protocol.Digest{10}, []byte("after")); err != nil {
		t.Fatalf("a slot was not given back: %v", err)
	}
	if most := h.most.Load(); most != 2 {
		t.Fatalf("%d renderings ran at once, want 2", most)
	}
}

// Previews (anyone may send one) have their own slot: a preview being
// rendered never holds the slot stored documents render in, and a second
// preview at the same time is refused rather than queued behind it.
func TestPreviewsNeverTakeThePagesSlot(t *testing.T) {
	h := newHeldRenderer(1)
	d := NewDocuments(DocumentsOptions{Slots: 1, Render: h.render})
	var wg sync.WaitGroup
	wg.Go(func() {
		if _, err := d.Preview(context.Background(), []byte("slow preview")); err != nil {
			t.Error(err)
		}
	})
	<-h.entered
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := d.Preview(gone, []byte("second preview")); !errors.Is(err, ErrBusy) {
		t.Fatalf("a second preview while one renders: %v, want %s", err, ErrBusy.Code)
	}
	page := make(chan error, 1)
	go func() {
		_, err := d.Published(context.Background(), protocol.Digest{1}, []byte("page"))
		page <- err
	}()
	<-h.entered // the page renders while the preview still holds its own slot
	close(h.release)
	if err := <-page; err != nil {
		t.Fatal(err)
	}
	wg.Wait()
}

func TestPublishedDocumentsRenderOnce(t *testing.T) {
	h := newHeldRenderer(0)
	d := NewDocuments(DocumentsOptions{Render: h.render})
	a, b := protocol.Digest{1}, protocol.Digest{2}
	for range 3 {
		out, err := d.Published(context.Background(), a, []byte("A"))
		if err != nil || string(out.HTML) != "<p>A" {
			t.Fatalf("%q, %v", out.HTML, err)
		}
	}
	if _, err := d.Published(context.Background(), b, []byte("B")); err != nil {
		t.Fatal(err)
	}
	if got := h.calls.Load(); got != 2 {
		t.Fatalf("two documents viewed four times were rendered %d times, want 2", got)
	}
	if _, err := d.Preview(context.Background(), []byte("A")); err != nil || h.calls.Load() != 3 {
		t.Fatalf("a preview must render (and not be cached): %v, %d calls", err, h.calls.Load())
	}
}

func TestCacheIsBoundedInBytes(t *testing.T) {
	const each = entryOverhead + 1000
	c := newCache(3 * each)
	html := make([]byte, 1000)
	for i := range byte(3) {
		c.put(protocol.Digest{i}, Rendered{HTML: html})
	}
	c.get(protocol.Digest{0}) // now the most recently used
	c.put(protocol.Digest{3}, Rendered{HTML: html})
	if c.used > c.maxBytes || len(c.items) != 3 {
		t.Fatalf("used %d of %d with %d items", c.used, c.maxBytes, len(c.items))
	}
	for i, want := range []bool{true, false, true, true} {
		if _, ok := c.get(protocol.Digest{byte(i)}); ok != want {
			t.Errorf("entry %d cached: %v, want %v (least recently used goes first)", i, ok, want)
		}
	}
	c.put(protocol.Digest{9}, Rendered{HTML: make([]byte, 4*each)})
	if _, ok := c.get(protocol.Digest{9}); ok || len(c.items) != 3 {
		t.Errorf("an entry larger than the whole cache was kept or evicted others")
	}
}
