package webhook_test

import (
	"strings"
	"testing"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/testing/security"
	"github.com/agora-registry/registry/internal/webhook"
)

// TestAddSaysWhatIsWrong: `registry webhook add` refuses an event the log
// never has (a typo would register a webhook that is never sent anything)
// and names the part that is wrong; nothing is stored.
func TestAddSaysWhatIsWrong(t *testing.T) {
	srv := security.Start(t, security.Options{})
	const secret = "a secret of some length"
	for _, c := range []struct {
		url, secret string
		events      []string
		want        string
	}{
		{"https://hooks.example/x", secret, []string{"publish", "publsh"}, `unknown event "publsh": a webhook takes publish, withdraw, deprecate, reactivate`},
		{"https://hooks.example/x", secret, []string{"withdraw", "\x1b[2J"}, `unknown event "\x1b[2J"`},
		{"https://hooks.example/x", secret, nil, "names no event"},
		{"https://hooks.example/x", "short", []string{"publish"}, "fewer than 16 characters"},
		{"https://hooks.example/x", "whsec_not base64, though long", []string{"publish"}, "a whsec_ secret is standard base64 of at least 16 bytes"},
		{"https://hooks.example/x", "whsec_c2hvcnQga2V5", []string{"publish"}, "at least 16 bytes"}, // "short key"
		{"ftp://hooks.example/x", secret, []string{"publish"}, `"ftp://hooks.example/x" is not an http(s) URL`},
		{"https://u:p@hooks.example/x", secret, []string{"publish"}, "without user information"},
	} {
		_, err := webhook.Add(ctx(t), srv.Store, c.url, c.secret, c.events, false)
		if e := apperr.As(err); e == nil || e.Kind != apperr.Invalid || !strings.Contains(e.Message, c.want) {
			t.Errorf("Add(%q, %q, %q): %v, want an invalid-input error saying %q", c.url, c.secret, c.events, err, c.want)
		}
	}
	if ws, err := srv.Store.ListWebhooks(ctx(t)); err != nil || len(ws) != 0 {
		t.Fatalf("refused webhooks were stored: %+v %v", ws, err)
	}
	w, err := webhook.Add(ctx(t), srv.Store, "https://hooks.example/x", secret, []string{" deprecate", "reactivate", "deprecate"}, false)
	if err != nil || strings.Join(w.Events, ",") != "deprecate,reactivate" {
		t.Fatalf("a good webhook: %+v %v", w, err)
	}
	// No secret: a new Standard Webhooks one, different each time.
	a, errA := webhook.Add(ctx(t), srv.Store, "https://hooks.example/a", "", []string{"publish"}, false)
	b, errB := webhook.Add(ctx(t), srv.Store, "https://hooks.example/b", "", []string{"publish"}, false)
	if errA != nil || errB != nil || !strings.HasPrefix(a.Secret, "whsec_") || len(agora.WebhookKey(a.Secret)) != 32 || a.Secret == b.Secret {
		t.Fatalf("made secrets %q, %q: %v %v", a.Secret, b.Secret, errA, errB)
	}
}
