package html_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/oauth2-proxy/mockoidc"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/store"
)

// In a real browser, on a private registry: a page sends the user to sign
// in at the provider and back to the page; the publish form publishes on
// the session; the account page makes a token shown once; signing out
// sends the next page back to the provider. A user no rule names is told
// why they cannot publish.
func TestBrowserSignInPublishAccountSignOut(t *testing.T) {
	ctx, ev := newBrowser(t)
	p := startProvider(t)
	cfg := p.Config()
	srv := startServer(t, serverOptions{private: true, signIn: signInWith(cfg.Issuer, cfg.ClientID, cfg.ClientSecret, &clock{})})
	if _, err := srv.svc.CreatePublisher(context.Background(), "acme", "Acme"); err != nil {
		t.Fatal(err)
	}
	p.QueueUser(&mockoidc.MockUser{Subject: "b1", Email: "ann@corp.test", EmailVerified: true, Groups: []string{"engineering"}})

	must(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/publish"), chromedp.WaitVisible(chromedp.ID("publisher"))), "signing in on the way to /publish")
	url := run(t, ctx, "reading the location", chromedp.Location())
	hint := run(t, ctx, "reading the hint", chromedp.Evaluate[string](`document.querySelector("#publisher + p.hint").textContent`))
	if !strings.HasPrefix(url, srv.URL+"/publish") || !strings.Contains(hint, "ann@corp.test") {
		t.Fatalf("after signing in: at %s, hint %q", url, hint)
	}
	if n := run(t, ctx, "counting token fields", chromedp.Evaluate[int](`document.querySelectorAll("#token").length`)); n != 0 {
		t.Errorf("a signed-in user is asked for a token (%d fields)", n)
	}
	publishThroughForm(t, ctx, srv.URL, goodDoc, "")
	page, err := srv.svc.Search(context.Background(), store.Query{Publisher: "acme", Limit: 5})
	if err != nil || len(page.Entries) != 1 {
		t.Fatalf("published as acme: %v %v", page.Entries, err)
	}

	must(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/account"), chromedp.WaitVisible(chromedp.ID("token-name")),
		chromedp.SendKeys(chromedp.ID("token-name"), "laptop"),
		chromedp.Click(chromedp.CSS(`form[action="/account/tokens"] button`)),
		chromedp.WaitVisible(chromedp.ID("new-token"))), "making a token")
	secret := run(t, ctx, "reading the token", chromedp.Evaluate[string](`document.getElementById("new-token").textContent`))
	tok, err := srv.svc.Authenticate(context.Background(), secret)
	if err != nil || tok.CreatedBy != "ann@corp.test" || !tok.Has(entity.ScopeRead) || tok.Has(entity.ScopePublish) {
		t.Fatalf("the browser's token: %+v %v", tok, err)
	}
	screenshot(t, ctx, "account.png")

	// After signing out the next page needs a sign-in again: the provider
	// now signs in a user no rule names, who is told why they cannot publish.
	p.QueueUser(&mockoidc.MockUser{Subject: "b2", Email: "bob@corp.test", EmailVerified: true, Groups: []string{"marketing"}})
	sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(sctx, chromedp.Click(chromedp.ID("sign-out")), chromedp.WaitNotPresent(chromedp.ID("sign-out"))); err != nil {
		body, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href + "\n" + document.body.innerText`))
		t.Fatalf("signing out: %v; the page:\n%s", err, body)
	}
	must(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/publish"), chromedp.WaitVisible(chromedp.ID("no-publisher"))), "the second user's publish form")
	text := run(t, ctx, "reading the notice", chromedp.Evaluate[string](`document.getElementById("no-publisher").textContent`))
	if !strings.Contains(text, "bob@corp.test") || !strings.Contains(text, "cannot publish") {
		t.Fatalf("the notice: %q", text)
	}
	if console, dialogs, thrown := ev.snapshot(); len(thrown) > 0 || len(dialogs) > 0 {
		t.Fatalf("console %v, dialogs %v, exceptions %v", console, dialogs, thrown)
	}
}
