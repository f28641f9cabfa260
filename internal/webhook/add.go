package webhook

import (
	"context"
	"net/url"
	"slices"
	"strings"

	"github.com/agora-registry/registry/internal/store"
)

// ErrBadWebhook refuses a webhook that cannot be registered.
var ErrBadWebhook = store.ErrInvalid.With("a webhook needs an http(s) URL, a secret of at least 16 characters and event names")

// Add checks and registers a webhook; it is sent the changes from now on,
// or the whole log with fromStart.
func Add(ctx context.Context, st interface {
	store.Webhooks
	LogHead(ctx context.Context) (store.LogHead, error)
}, rawURL, secret string, events []string, fromStart bool) (store.Webhook, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || len(secret) < 16 {
		return store.Webhook{}, ErrBadWebhook
	}
	var clean []string
	for _, e := range events {
		e = strings.TrimSpace(e)
		if e == "" || strings.ContainsAny(e, " \t\n,") || len(e) > 32 {
			return store.Webhook{}, ErrBadWebhook
		}
		if !slices.Contains(clean, e) {
			clean = append(clean, e)
		}
	}
	if len(clean) == 0 {
		return store.Webhook{}, ErrBadWebhook
	}
	from := int64(0)
	if !fromStart {
		head, err := st.LogHead(ctx)
		if err != nil {
			return store.Webhook{}, err
		}
		from = head.Size
	}
	return st.CreateWebhook(ctx, u.String(), secret, clean, from)
}
