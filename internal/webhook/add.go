package webhook

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/store"
)

// ErrBadWebhook refuses a webhook that cannot be registered; With says
// which part is wrong.
var ErrBadWebhook = store.ErrInvalid.With("a webhook needs an http(s) URL, a secret of at least 16 characters and event names")

// Events are the log's events a webhook may ask for.
var Events = []string{agora.LogEventPublish, agora.LogEventWithdraw, agora.LogEventDeprecate, agora.LogEventReactivate}

// Add checks and registers a webhook; it is sent the changes from now on,
// or the whole log with fromStart. An empty secret gets a new random
// whsec_ one (the returned webhook's Secret).
func Add(ctx context.Context, st interface {
	store.Webhooks
	LogHead(ctx context.Context) (store.LogHead, error)
}, rawURL, secret string, events []string, fromStart bool) (entity.Webhook, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return entity.Webhook{}, ErrBadWebhook.With(fmt.Sprintf("%q is not an http(s) URL without user information", printable(rawURL)))
	}
	if secret == "" {
		secret = NewSecret()
	}
	if rest, ok := strings.CutPrefix(secret, agora.WebhookSecretPrefix); ok {
		// A receiver's Standard Webhooks library decodes it: it must decode.
		if key, err := base64.StdEncoding.DecodeString(rest); err != nil || len(key) < minSecretBytes {
			return entity.Webhook{}, ErrBadWebhook.With(fmt.Sprintf("a whsec_ secret is standard base64 of at least %d bytes", minSecretBytes))
		}
	}
	if len(secret) < minSecretBytes {
		return entity.Webhook{}, ErrBadWebhook.With("the webhook's secret has fewer than 16 characters")
	}
	var clean []string
	for _, e := range events {
		e = strings.TrimSpace(e)
		if !slices.Contains(Events, e) {
			return entity.Webhook{}, ErrBadWebhook.With(fmt.Sprintf("unknown event %q: a webhook takes %s", printable(e), strings.Join(Events, ", ")))
		}
		if !slices.Contains(clean, e) {
			clean = append(clean, e)
		}
	}
	if len(clean) == 0 {
		return entity.Webhook{}, ErrBadWebhook.With("the webhook names no event: it takes " + strings.Join(Events, ", "))
	}
	from := int64(0)
	if !fromStart {
		head, err := st.LogHead(ctx)
		if err != nil {
			return entity.Webhook{}, err
		}
		from = head.Size
	}
	return st.CreateWebhook(ctx, u.String(), secret, clean, from)
}

// minSecretBytes is the shortest secret (or whsec_ key) accepted.
const minSecretBytes = 16

// NewSecret is a new Standard Webhooks secret: whsec_ and 32 random bytes
// in base64.
func NewSecret() string {
	key := make([]byte, 32)
	_, _ = rand.Read(key) // never fails (crypto/rand)
	return agora.WebhookSecretPrefix + base64.StdEncoding.EncodeToString(key)
}

// printable quotes at most 200 bytes of an operator's argument.
func printable(s string) string {
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
