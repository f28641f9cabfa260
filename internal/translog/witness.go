package translog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/store"
)

// Witnessing (c2sp.org/tlog-witness): after each new checkpoint the log
// asks every configured witness to cosign it, keeps the cosignatures in the
// store and serves the checkpoint with the valid ones appended
// (c2sp.org/tlog-cosignature). A witness that is down or refuses never
// holds up publishing: the checkpoint is then served with fewer
// cosignatures.

// Bounds of the exchange with a witness.
const (
	// DefaultWitnessTimeout bounds one add-checkpoint request.
	DefaultWitnessTimeout = 10 * time.Second
	// maxWitnessAnswer bounds a witness's answer: a cosignature line is
	// about 120 bytes, a 409's size a few.
	maxWitnessAnswer = 4 << 10
	// Backoff after a failed request, doubling up to the maximum.
	minWitnessBackoff = 2 * time.Second
	maxWitnessBackoff = 10 * time.Minute
)

// Witness is one configured witness: its cosignature verifier key and the
// base URL of its c2sp.org/tlog-witness endpoints.
type Witness struct {
	Key string
	URL string
	v   note.Verifier
}

// Name is the witness's name (its cosignature lines' key name).
func (w Witness) Name() string { return w.v.Name() }

// ParseWitness reads VKEY@URL (a cosignature verifier key has no '@').
func ParseWitness(s string) (Witness, error) {
	vkey, base, ok := strings.Cut(strings.TrimSpace(s), "@")
	if !ok {
		return Witness{}, fmt.Errorf("witness %q is not VKEY@URL", s)
	}
	v, _, err := agora.ParseWitnessKey(vkey)
	if err != nil {
		return Witness{}, fmt.Errorf("witness %q is not a cosignature verifier key: %w", s, err)
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return Witness{}, fmt.Errorf("witness %q: %q is not an http(s) base URL", s, base)
	}
	return Witness{Key: vkey, URL: strings.TrimSuffix(base, "/"), v: v}, nil
}

// Cosigner sends the log's checkpoints to its witnesses and appends their
// valid cosignatures to the checkpoints served.
type Cosigner struct {
	log       *Log
	logKey    note.Verifier
	witnesses []*witnessRun
	quorum    int
	hc        *http.Client
	// Timeout bounds one request; MinBackoff and MaxBackoff the wait after
	// a witness failed (tests shorten them).
	Timeout                time.Duration
	MinBackoff, MaxBackoff time.Duration
	wake                   chan struct{}

	mu        sync.Mutex
	validBody string          // the checkpoint whose cosignatures valid caches
	valid     map[string]bool // cosignature line: verified against validBody
}

// witnessRun is a witness and this process's dealings with it.
type witnessRun struct {
	Witness
	failures atomic.Uint64
	// Touched by the one round at a time (Cosigner.round).
	backoff time.Duration
	next    time.Time
	lastErr atomic.Value // string
}

// NewCosigner asks ws to cosign l's checkpoints through hc (which must
// bound its own connections; every request is also bounded by Timeout);
// quorum is how many cosignatures the registry calls enough (reporting
// only: the checkpoint is served with whatever is there).
func (l *Log) NewCosigner(ws []Witness, quorum int, hc *http.Client) (*Cosigner, error) {
	logKey, err := note.NewVerifier(l.key.VerifierKey)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, w := range ws {
		if seen[w.Name()] {
			return nil, fmt.Errorf("two witnesses are named %s", w.Name())
		}
		seen[w.Name()] = true
	}
	if quorum < 0 || quorum > len(ws) {
		return nil, fmt.Errorf("a witness quorum of %d out of %d witnesses", quorum, len(ws))
	}
	c := &Cosigner{log: l, logKey: logKey, quorum: quorum, hc: hc, Timeout: DefaultWitnessTimeout,
		MinBackoff: minWitnessBackoff, MaxBackoff: maxWitnessBackoff, wake: make(chan struct{}, 1)}
	for _, w := range ws {
		c.witnesses = append(c.witnesses, &witnessRun{Witness: w})
	}
	l.mu.Lock()
	l.cosigner = c
	l.mu.Unlock()
	return c, nil
}

// Quorum is how many cosignatures the registry calls enough.
func (c *Cosigner) Quorum() int { return c.quorum }

// Cosigner is the log's cosigner, nil without witnesses.
func (l *Log) Cosigner() *Cosigner {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cosigner
}

// notify asks for a round soon; it never blocks.
func (c *Cosigner) notify() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// Run sends the newest checkpoint to the witnesses whenever the log grows
// here and every poll interval (a checkpoint another replica integrated)
// until ctx ends.
func (c *Cosigner) Run(ctx context.Context, poll time.Duration) {
	if poll <= 0 {
		poll = DefaultPollInterval
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		c.Round(ctx)
		select {
		case <-ctx.Done():
			return
		case <-c.wake:
		case <-t.C:
		}
	}
}

// Round asks every witness that has not cosigned the newest checkpoint and
// is not backing off, in parallel, one request in flight per witness,
// under the database's witness lock (another process holding it is doing
// the same). It waits for all of them, at most Timeout each (a 409 adds
// one more request).
func (c *Cosigner) Round(ctx context.Context) {
	head, states, err := c.state(ctx)
	if err != nil || head.Size == 0 || !c.due(head, states) {
		return
	}
	unlock, ok, err := c.log.st.LockWitnesses(ctx)
	if err != nil || !ok {
		return
	}
	defer unlock()
	// Read again under the lock: another process may have moved on.
	if head, states, err = c.state(ctx); err != nil {
		return
	}
	if _, err := agora.OpenLogCheckpoint(head.Checkpoint, c.logKey); err != nil {
		return // signed by another key (a replica rotating it): not ours to send
	}
	var wg sync.WaitGroup
	now := time.Now()
	for _, w := range c.witnesses {
		if now.Before(w.next) || c.cosignedBy(head, w, states[w.Key]) != "" {
			continue
		}
		wg.Go(func() {
			err := c.cosign(ctx, w, head, states[w.Key])
			if ctx.Err() != nil {
				return
			}
			if err != nil {
				w.failed(c, err)
				c.log.log.Warn("transparency log: witness did not cosign; retrying later", "witness", w.Name(), "url", w.URL,
					"treeSize", head.Size, "retryIn", w.backoff.String(), "error", err.Error())
				return
			}
			w.backoff, w.next = 0, time.Time{}
			w.lastErr.Store("")
		})
	}
	wg.Wait()
	if n, _ := c.count(ctx); n < c.quorum && ctx.Err() == nil {
		c.log.log.Warn("transparency log: the checkpoint has fewer cosignatures than the quorum", "cosignatures", n, "quorum", c.quorum, "treeSize", head.Size)
	}
}

func (w *witnessRun) failed(c *Cosigner, err error) {
	w.failures.Add(1)
	w.lastErr.Store(err.Error())
	w.backoff = min(max(2*w.backoff, c.MinBackoff), c.MaxBackoff)
	w.next = time.Now().Add(w.backoff)
}

// state reads the head and the witnesses' states.
func (c *Cosigner) state(ctx context.Context) (store.LogHead, map[string]store.WitnessState, error) {
	head, err := c.log.st.LogHead(ctx)
	if err != nil {
		return store.LogHead{}, nil, err
	}
	list, err := c.log.st.WitnessStates(ctx)
	if err != nil {
		return store.LogHead{}, nil, err
	}
	states := make(map[string]store.WitnessState, len(list))
	for _, s := range list {
		states[s.Key] = s
	}
	return head, states, nil
}

// due reports whether a witness not backing off lacks a cosignature of head.
func (c *Cosigner) due(head store.LogHead, states map[string]store.WitnessState) bool {
	now := time.Now()
	for _, w := range c.witnesses {
		if !now.Before(w.next) && c.cosignedBy(head, w, states[w.Key]) == "" {
			return true
		}
	}
	return false
}

// errConflict is a witness's 409: it holds another tree size.
type errConflict struct{ size int64 }

func (e errConflict) Error() string {
	return fmt.Sprintf("the witness holds tree size %d (409)", e.size)
}

// cosign brings one witness to head: a request from the size it holds, and
// on a 409 one more from the size it says it holds. It never sends a
// checkpoint smaller than what the witness holds.
func (c *Cosigner) cosign(ctx context.Context, w *witnessRun, head store.LogHead, st store.WitnessState) error {
	st.Key = w.Key
	for range 2 {
		if st.Size > head.Size {
			return fmt.Errorf("the witness holds tree size %d of this log, larger than its newest checkpoint (%d): not sending a checkpoint that goes backwards (a restored database, or another log with this origin and key?)", st.Size, head.Size)
		}
		line, err := c.addCheckpoint(ctx, w, st.Size, head)
		var conflict errConflict
		switch {
		case err == nil:
			st.Size, st.CosignedSize, st.Cosignature = head.Size, head.Size, line
			return c.log.st.SaveWitnessState(ctx, st)
		case errors.As(err, &conflict):
			st.Size = conflict.size
			if err := c.log.st.SaveWitnessState(ctx, st); err != nil {
				return err
			}
		default:
			return err
		}
	}
	return fmt.Errorf("the witness answered 409 twice in a row (now holding size %d)", st.Size)
}

// addCheckpoint sends one add-checkpoint request (c2sp.org/tlog-witness)
// and returns the witness's cosignature line of head, verified.
func (c *Cosigner) addCheckpoint(ctx context.Context, w *witnessRun, old int64, head store.LogHead) (string, error) {
	var body bytes.Buffer
	fmt.Fprintf(&body, "old %d\n", old)
	if old > 0 && old < head.Size {
		proof, err := tlog.ProveTree(head.Size, old, tlog.HashReaderFunc(func(indexes []int64) ([]tlog.Hash, error) {
			return c.log.st.LogHashes(ctx, indexes)
		}))
		if err != nil {
			return "", fmt.Errorf("proving the tree of size %d consistent with size %d: %w", head.Size, old, err)
		}
		for _, h := range proof {
			body.WriteString(h.String() + "\n")
		}
	}
	body.WriteString("\n")
	body.Write(head.Checkpoint)

	rctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, w.URL+"/add-checkpoint", &body)
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "text/plain; charset=utf-8")
	resp, err := c.hc.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxWitnessAnswer+1))
	if err != nil {
		return "", fmt.Errorf("reading the answer: %w", err)
	}
	if len(answer) > maxWitnessAnswer {
		return "", fmt.Errorf("the answer (%d) is larger than %d bytes", resp.StatusCode, maxWitnessAnswer)
	}
	switch resp.StatusCode {
	case http.StatusOK:
		return cosignatureOf(head.Checkpoint, answer, w.v)
	case http.StatusConflict:
		size, err := strconv.ParseInt(strings.TrimSuffix(string(answer), "\n"), 10, 64)
		if resp.Header.Get("Content-Type") != "text/x.tlog.size" || err != nil || size < 0 {
			return "", errors.New("the witness answered 409 without its tree size (text/x.tlog.size)")
		}
		return "", errConflict{size}
	case http.StatusForbidden:
		return "", errors.New("the witness does not verify this log's signature (403): register the log's verifier key with it")
	case http.StatusNotFound:
		return "", errors.New("the witness does not know this log (404): register the log's origin and verifier key with it")
	case http.StatusUnprocessableEntity:
		return "", fmt.Errorf("the witness refused the consistency proof from size %d (422): it holds a different tree of this log", old)
	case http.StatusBadRequest:
		return "", errors.New("the witness found the request malformed (400)")
	default:
		return "", fmt.Errorf("the witness answered %d", resp.StatusCode)
	}
}

// cosignatureOf returns the cosignature line by v among lines (a
// witness's answer: signature lines of checkpoint) after verifying it over
// checkpoint; anything else in lines is dropped.
func cosignatureOf(checkpoint, lines []byte, v note.Verifier) (string, error) {
	if len(lines) == 0 || lines[len(lines)-1] != '\n' {
		return "", errors.New("the witness's answer is not signature lines")
	}
	n, err := note.Open(append(bytes.Clone(checkpoint), lines...), note.VerifierList(v))
	if err != nil {
		var unverified *note.UnverifiedNoteError
		if errors.As(err, &unverified) {
			return "", fmt.Errorf("the witness's answer has no cosignature by %s", v.Name())
		}
		return "", fmt.Errorf("the witness's cosignature does not verify: %w", err)
	}
	for _, s := range n.Sigs {
		if s.Hash == v.KeyHash() && s.Name == v.Name() {
			return "— " + s.Name + " " + s.Base64 + "\n", nil
		}
	}
	return "", fmt.Errorf("the witness's answer has no cosignature by %s", v.Name())
}

// cosignedBy returns the witness's stored cosignature line when it is one
// of head's checkpoint, verified with the configured key, else "": a line
// from the store is served only once it verifies, whoever wrote it.
func (c *Cosigner) cosignedBy(head store.LogHead, w *witnessRun, st store.WitnessState) string {
	if st.CosignedSize != head.Size || st.Cosignature == "" || strings.Count(st.Cosignature, "\n") != 1 || len(head.Checkpoint) == 0 {
		return ""
	}
	body, _, _ := bytes.Cut(head.Checkpoint, []byte("\n\n"))
	key := w.Key + "\x00" + st.Cosignature
	c.mu.Lock()
	if c.validBody != string(body) {
		c.validBody, c.valid = string(body), map[string]bool{}
	}
	ok, seen := c.valid[key]
	c.mu.Unlock()
	if !seen {
		line, err := cosignatureOf(head.Checkpoint, []byte(st.Cosignature), w.v)
		ok = err == nil && line == st.Cosignature
		c.mu.Lock()
		if c.validBody == string(body) && len(c.valid) < 4*len(c.witnesses)+4 {
			c.valid[key] = ok
		}
		c.mu.Unlock()
	}
	if !ok {
		return ""
	}
	return st.Cosignature
}

// cosign appends the witnesses' valid cosignatures of head to its
// checkpoint; a store error serves the log's signature alone.
func (c *Cosigner) cosigned(ctx context.Context, head store.LogHead) []byte {
	list, err := c.log.st.WitnessStates(ctx)
	if err != nil {
		c.log.log.Warn("transparency log: reading the witnesses' cosignatures failed; serving the checkpoint without them", "error", err.Error())
		return head.Checkpoint
	}
	states := make(map[string]store.WitnessState, len(list))
	for _, s := range list {
		states[s.Key] = s
	}
	out := head.Checkpoint
	for _, w := range c.witnesses {
		if line := c.cosignedBy(head, w, states[w.Key]); line != "" {
			if len(out) == len(head.Checkpoint) {
				out = bytes.Clone(head.Checkpoint)
			}
			out = append(out, line...)
		}
	}
	return out
}

// WitnessStatus is one witness as this process sees it.
type WitnessStatus struct {
	Name     string `json:"name"`
	URL      string `json:"url"`
	Cosigned bool   `json:"cosigned"` // the newest checkpoint carries its valid cosignature
	Size     int64  `json:"size"`     // the tree size it holds
	// Failures counts this process's failed requests to it; LastError is
	// the latest failure since its last success ("" none).
	Failures  uint64 `json:"failures"`
	LastError string `json:"lastError,omitempty"`
}

// Status reports every witness and how many cosignatures the newest
// checkpoint carries (the metric and the /log page).
func (c *Cosigner) Status(ctx context.Context) (cosignatures, quorum int, ws []WitnessStatus, err error) {
	head, states, err := c.state(ctx)
	if err != nil {
		return 0, c.quorum, nil, err
	}
	for _, w := range c.witnesses {
		s := WitnessStatus{Name: w.Name(), URL: w.URL, Size: states[w.Key].Size, Failures: w.failures.Load()}
		s.LastError, _ = w.lastErr.Load().(string)
		if c.cosignedBy(head, w, states[w.Key]) != "" {
			s.Cosigned = true
			cosignatures++
		}
		ws = append(ws, s)
	}
	return cosignatures, c.quorum, ws, nil
}

// count is how many valid cosignatures the newest checkpoint carries.
func (c *Cosigner) count(ctx context.Context) (int, error) {
	n, _, _, err := c.Status(ctx)
	return n, err
}

// Failures is this process's failed requests to each witness, by name.
func (c *Cosigner) Failures() map[string]func() uint64 {
	out := make(map[string]func() uint64, len(c.witnesses))
	for _, w := range c.witnesses {
		out[w.Name()] = w.failures.Load
	}
	return out
}
