package api

import (
	"bytes"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"
)

// heavyWriteChunk is how much of a buffered answer goes out per write: each
// chunk gets the stall deadline afresh, so a client reading steadily at a
// modest rate is served, and one that stops reading is cut off.
const heavyWriteChunk = 64 << 10

// bufferedAnswer is the http.ResponseWriter a heavy handler writes to while
// it holds a slot: the status and body stay in memory, the headers are the
// real response's (nothing is sent before WriteHeader reaches the network).
type bufferedAnswer struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferedAnswer) Header() http.Header         { return b.header }
func (b *bufferedAnswer) WriteHeader(status int)      { b.status = status }
func (b *bufferedAnswer) Write(p []byte) (int, error) { return b.body.Write(p) }

// Flush does nothing: the answer leaves once the slot is released (and a
// handler that flushes must not find the writer unflushable).
func (b *bufferedAnswer) Flush() {}

// writeOut sends a buffered answer, chunk by chunk under the stall
// deadline (never past the server's write timeout), and then gives the
// connection back its usual write budget.
// Nothing buffered (the handler failed before answering): err goes to the
// error handler as usual.
func (g *heavyGate) writeOut(c echo.Context, out *bufferedAnswer, start time.Time, err error) error {
	if out.status == 0 {
		return err
	}
	w := c.Response().Writer
	rc := http.NewResponseController(w)
	budget := start.Add(g.writeTimeout) // the whole answer's, as without the gate
	deadline := func() time.Time {
		if d := time.Now().Add(g.stall); d.Before(budget) {
			return d
		}
		return budget
	}
	if out.status != http.StatusNoContent && out.status != http.StatusNotModified && w.Header().Get(echo.HeaderContentLength) == "" {
		w.Header().Set(echo.HeaderContentLength, strconv.Itoa(out.body.Len()))
	}
	_ = rc.SetWriteDeadline(deadline())
	w.WriteHeader(out.status)
	for b := out.body.Bytes(); len(b) > 0; {
		n := min(len(b), heavyWriteChunk)
		_ = rc.SetWriteDeadline(deadline())
		if _, werr := w.Write(b[:n]); werr != nil {
			break // the client stopped reading; its connection is dropped
		}
		b = b[n:]
	}
	_ = rc.Flush()
	_ = rc.SetWriteDeadline(budget)
	return err
}
