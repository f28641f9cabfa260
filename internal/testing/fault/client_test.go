package fault

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// requestTimeout bounds every request of these tests: an answer slower than
// this counts as a hang, which is a failure in its own right.
const requestTimeout = 15 * time.Second

// maxResponseBytes bounds what the tests read from the server.
const maxResponseBytes = 4 << 20

// client is an HTTP client with one bounded connection pool per test.
type client struct{ http *http.Client }

func newClient() *client {
	tr := &http.Transport{
		MaxIdleConns:        64,
		MaxIdleConnsPerHost: 64,
		IdleConnTimeout:     30 * time.Second,
	}
	return &client{http: &http.Client{Transport: tr, Timeout: requestTimeout}}
}

func (c *client) close() { c.http.CloseIdleConnections() }

// do makes one request; err is set only when no HTTP answer came back.
func (c *client) do(ctx context.Context, method, url, contentType string, body []byte) (int, http.Header, []byte, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, r)
	if err != nil {
		return 0, nil, nil, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json")
	res, err := c.http.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, maxResponseBytes))
	if err != nil {
		return res.StatusCode, res.Header, nil, err
	}
	return res.StatusCode, res.Header, b, nil
}

// problem is the API's one error shape.
type problem struct {
	Type, Title, Code, Detail, RequestID string
	Status                               int
}

// checkProblem reports what is wrong with an error answer's shape, or "".
func checkProblem(status int, h http.Header, body []byte, wantStatus int, wantCode string) string {
	if status != wantStatus {
		return fmt.Sprintf("status %d, want %d: %.200s", status, wantStatus, body)
	}
	if ct := h.Get("Content-Type"); ct != "application/problem+json" {
		return fmt.Sprintf("Content-Type %q: %.200s", ct, body)
	}
	var p problem
	if err := json.Unmarshal(body, &p); err != nil {
		return fmt.Sprintf("body is not a problem (%v): %.200s", err, body)
	}
	if p.Status != wantStatus || p.Code != wantCode || p.Detail == "" || p.RequestID == "" {
		return fmt.Sprintf("problem %+v, want status %d code %s", p, wantStatus, wantCode)
	}
	if wantStatus == http.StatusServiceUnavailable && h.Get("Retry-After") == "" {
		return "503 without Retry-After"
	}
	return ""
}

// words make documents that full-text search can find.
var words = strings.Fields(`weather forecast booking flight hotel payment invoice
translate summary stock price recipe calendar meeting shipment tracking
inventory sensor reading temperature humidity route traffic`)

var docSeq atomic.Int64

// newDocument returns a document no other call of this process returns.
func newDocument(rng *rand.Rand) []byte {
	n := docSeq.Add(1)
	a, b := words[rng.IntN(len(words))], words[rng.IntN(len(words))]
	var body strings.Builder
	for i := 0; i < 20+rng.IntN(200); i++ {
		body.WriteString(words[rng.IntN(len(words))])
		body.WriteByte(' ')
	}
	return fmt.Appendf(nil, "---\nname: %s %s protocol %d-%d\ndescription: Exchange %s data with %s services.\nmultiround: false\ntags: [fault, %s]\n---\n\n# %s %s\n\n%s\n",
		a, b, n, time.Now().UnixNano(), a, b, a, a, b, body.String())
}

func hexOf(doc []byte) string {
	sum := sha1.Sum(doc)
	return hex.EncodeToString(sum[:])
}

// publish POSTs a document. acked is true for 201/200 with the expected hex.
func (c *client) publish(ctx context.Context, base string, doc []byte) (status int, h http.Header, body []byte, acked bool, err error) {
	status, h, body, err = c.do(ctx, "POST", base+"/api/v1/protocols", "text/markdown; charset=utf-8", doc)
	if err != nil || (status != 201 && status != 200) {
		return status, h, body, false, err
	}
	var e struct{ Hex string }
	if jerr := json.Unmarshal(body, &e); jerr != nil || e.Hex != hexOf(doc) {
		return status, h, body, false, fmt.Errorf("publish answered %d with hex %q, want %s (%v)", status, e.Hex, hexOf(doc), jerr)
	}
	return status, h, body, true, nil
}

// ledger records every acknowledged publish with its exact bytes.
type ledger struct {
	mu   sync.Mutex
	docs map[string][]byte
	hexs []string
}

func newLedger() *ledger { return &ledger{docs: map[string][]byte{}} }

func (l *ledger) add(doc []byte) {
	h := hexOf(doc)
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.docs[h]; !ok {
		l.docs[h] = doc
		l.hexs = append(l.hexs, h)
	}
}

func (l *ledger) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.hexs)
}

// pick returns a random acknowledged hex ("" when there is none yet).
func (l *ledger) pick(rng *rand.Rand) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.hexs) == 0 {
		return ""
	}
	return l.hexs[rng.IntN(len(l.hexs))]
}

func (l *ledger) get(h string) []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.docs[h]
}

// verifyAll fetches every acknowledged document and returns one message per
// document that is missing or differs from what was acknowledged.
func (l *ledger) verifyAll(ctx context.Context, c *client, base string) []string {
	l.mu.Lock()
	hexs := append([]string(nil), l.hexs...)
	l.mu.Unlock()
	var mu sync.Mutex
	var bad []string
	work := make(chan string)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for h := range work {
				st, _, body, err := c.do(ctx, "GET", base+"/protocol/"+h, "", nil)
				if err != nil || st != 200 || !bytes.Equal(body, l.get(h)) {
					mu.Lock()
					bad = append(bad, fmt.Sprintf("%s: status %d, err %v, %d bytes (want %d)", h, st, err, len(body), len(l.get(h))))
					mu.Unlock()
				}
			}
		}()
	}
	for _, h := range hexs {
		work <- h
	}
	close(work)
	wg.Wait()
	return bad
}
