// Package webhook delivers the transparency log's records to registered
// receivers (`registry webhook add`): each record a CloudEvents 1.0 JSON
// POST (structured mode), signed as a Standard Webhook (webhook-id,
// webhook-timestamp, webhook-signature; receivers check it with
// agora.VerifyWebhook), in log order from the webhook's cursor in the
// database, retried with exponential backoff for up to a day, through the
// SSRF guard.
package webhook

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/translog"
)

// Store is what delivery needs from the storage engine.
type Store interface {
	store.Webhooks
	LogHead(ctx context.Context) (store.LogHead, error)
	LogRecords(ctx context.Context, from int64, n int) ([]store.LogRecord, error)
}

// Timing of deliveries; zero values get the defaults.
type Timing struct {
	Poll       time.Duration // how often due webhooks are looked for (1 s)
	Lease      time.Duration // how long one process owns a webhook's round (1 min)
	MinBackoff time.Duration // wait after a first failure (10 s), doubling
	MaxBackoff time.Duration // longest wait (1 h)
	GiveUp     time.Duration // a record failing this long is skipped (24 h)
}

// perRound bounds the records one webhook is sent per round.
const perRound = 100

// maxAnswerBytes is what of a receiver's answer is read (and dropped).
const maxAnswerBytes = 64 << 10

// Dispatcher delivers every webhook's records.
type Dispatcher struct {
	st     Store
	hc     *http.Client
	source string // the registry's public URL: the events' source
	log    *slog.Logger
	t      Timing
	// Now is the clock (tests move it past backoffs).
	Now func() time.Time
}

// New returns a dispatcher posting through hc (the SSRF-guarded client).
func New(st Store, hc *http.Client, source string, logger *slog.Logger, t Timing) *Dispatcher {
	if logger == nil {
		logger = slog.Default()
	}
	def := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&t.Poll, time.Second)
	def(&t.Lease, time.Minute)
	def(&t.MinBackoff, 10*time.Second)
	def(&t.MaxBackoff, time.Hour)
	def(&t.GiveUp, 24*time.Hour)
	return &Dispatcher{st: st, hc: hc, source: source, log: logger, t: t, Now: time.Now}
}

// Run delivers every poll interval until ctx ends.
func (d *Dispatcher) Run(ctx context.Context) {
	tick := time.NewTicker(d.t.Poll)
	defer tick.Stop()
	for {
		if err := d.Deliver(ctx); err != nil && ctx.Err() == nil {
			d.log.Warn("webhooks: a delivery round failed", "error", err.Error())
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// Deliver runs one round: each due webhook is sent its next records.
func (d *Dispatcher) Deliver(ctx context.Context) error {
	head, err := d.st.LogHead(ctx)
	if err != nil {
		return err
	}
	ws, err := d.st.ClaimWebhooks(ctx, d.Now(), d.t.Lease)
	if err != nil {
		return err
	}
	// Each webhook's round gets its share of half the lease: a receiver
	// that answers slowly (but in time) delays the others by its share plus
	// one post, and the whole pass stays within the lease.
	share := d.t.Lease / 2 / time.Duration(max(len(ws), 1))
	for i, w := range ws {
		if err := d.round(ctx, w, head.Size, share); err != nil {
			if ctx.Err() != nil {
				// Shutting down: hand the rest back now rather than leave
				// them leased (undelivered) for a whole lease after a restart.
				for _, rest := range ws[i+1:] {
					_ = d.save(ctx, rest)
				}
			}
			return err
		}
	}
	return nil
}

// saveTimeout bounds the last save of a round interrupted by shutdown.
const saveTimeout = 5 * time.Second

// save stores w's cursor and backoff and ends its lease, even when ctx
// was cancelled by shutdown mid-round.
func (d *Dispatcher) save(ctx context.Context, w entity.Webhook) error {
	if ctx.Err() != nil {
		c, cancel := context.WithTimeout(context.WithoutCancel(ctx), saveTimeout)
		defer cancel()
		ctx = c
	}
	return d.st.SaveWebhookProgress(ctx, w)
}

// round sends one webhook up to perRound records, for about share (at
// least one record), and saves where it got.
func (d *Dispatcher) round(ctx context.Context, w entity.Webhook, size int64, share time.Duration) error {
	start := d.Now()
	if w.Delivered < size {
		recs, err := d.st.LogRecords(ctx, w.Delivered, int(min(perRound, size-w.Delivered)))
		if err != nil {
			if ctx.Err() != nil {
				_ = d.save(ctx, w) // shutdown: end the lease
			}
			return err
		}
		for _, r := range recs {
			if !slices.Contains(w.Events, r.Event) {
				w.Delivered = r.Index + 1
				continue
			}
			if err := d.post(ctx, w, r); err != nil {
				now := d.Now()
				if ctx.Err() != nil {
					// Interrupted by shutdown, not refused by the receiver:
					// not an attempt, and due again as soon as a process runs.
					w.NextAt = now
					if err := d.save(ctx, w); err != nil {
						return err
					}
					return ctx.Err()
				}
				if w.FailingSince == nil {
					w.FailingSince = &now
				}
				if now.Sub(*w.FailingSince) < d.t.GiveUp {
					w.Attempts++
					w.NextAt = now.Add(min(d.t.MinBackoff<<min(w.Attempts-1, 20), d.t.MaxBackoff))
					d.log.Warn("webhook delivery failed; retrying", "webhook", w.ID, "record", r.Index, "attempts", w.Attempts, "error", err.Error())
					return d.save(ctx, w)
				}
				d.log.Error("webhook delivery given up after retrying for a day", "webhook", w.ID, "record", r.Index, "error", err.Error())
			}
			w.Delivered, w.Attempts, w.FailingSince = r.Index+1, 0, nil
			if d.Now().Sub(start) >= share {
				break // the rest next round, after the others' turns
			}
		}
	}
	w.NextAt = d.Now()
	return d.save(ctx, w)
}

// Event is a record as a CloudEvents 1.0 structured-mode event.
type Event struct {
	SpecVersion     string          `json:"specversion"`
	ID              string          `json:"id"`
	Source          string          `json:"source"`
	Type            string          `json:"type"`
	Subject         string          `json:"subject"`
	Time            time.Time       `json:"time"`
	DataContentType string          `json:"datacontenttype"`
	Data            translog.Change `json:"data"`
}

// MessageID is the webhook-id of the event with CloudEvents id eventID:
// the same on every retry (receivers drop duplicates by it), and without
// the dots a URL has, so "id.timestamp.body" splits one way only.
func MessageID(eventID string) string {
	sum := sha256.Sum256([]byte(eventID))
	return "msg_" + hex.EncodeToString(sum[:16])
}

// sign sets the Standard Webhooks headers of req: its id, the time of this
// attempt (a retry is signed afresh, so receivers can refuse old
// timestamps) and the signature of body under secret.
func sign(req *http.Request, secret, id string, now time.Time, body []byte) {
	req.Header.Set(agora.WebhookIDHeader, id)
	req.Header.Set(agora.WebhookTimestampHeader, strconv.FormatInt(now.Unix(), 10))
	req.Header.Set(agora.WebhookSignatureHeader, agora.SignWebhook(secret, id, now, body))
}

// blocked names the registry's own option in the guard's refusal of a
// private address (its text speaks to agents' configs).
func blocked(err error) error {
	var e *agora.Error
	if !errors.Is(err, agora.ErrFetchBlocked) || !errors.As(err, &e) {
		return err
	}
	if msg, _, agentWords := strings.Cut(e.Message, " (allow-list it"); agentWords {
		return fmt.Errorf("the webhook's URL is refused: %s (list its host or address in the registry's --outbound-allow / REGISTRY_OUTBOUND_ALLOW to permit)", msg)
	}
	return fmt.Errorf("the webhook's URL is refused: %s", e.Message)
}

func (d *Dispatcher) post(ctx context.Context, w entity.Webhook, r store.LogRecord) error {
	c, err := translog.ChangeOf(r)
	if err != nil {
		return err
	}
	eventID := fmt.Sprintf("%s/log/%d", d.source, r.Index)
	body, err := json.Marshal(Event{SpecVersion: "1.0", ID: eventID, Source: d.source,
		Type: "org.agora-registry." + c.Event, Subject: c.Hex, Time: c.Time, DataContentType: "application/json", Data: c})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.URL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/cloudevents+json")
	req.Header.Set("User-Agent", "agora-registry-webhook/1")
	sign(req, w.Secret, MessageID(eventID), d.Now(), body)
	resp, err := d.hc.Do(req)
	if err != nil {
		return blocked(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxAnswerBytes))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("the receiver answered %d", resp.StatusCode)
	}
	return nil
}
