package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/config"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/registry"
)

func init() {
	register(command{Name: "publisher", Summary: "publisher create|list|verify: manage publisher accounts",
		Subs: map[string]string{"create": "registry publisher create [flags] NAME", "verify": "registry publisher verify [flags] NAME"}, Run: publisherCmd})
}

// verifyTimeout caps one domain verification fetch, redirects included.
const verifyTimeout = 10 * time.Second

const publisherUsage = `usage: registry publisher create NAME [--display "Display Name"] | list | verify NAME --domain DOMAIN [--check]
(database flags go after the subcommand: registry publisher list --data-dir DIR)`

func publisherCmd(ctx context.Context, env *environment, args []string) error {
	sub, args, err := subcommand(env, "publisher", publisherUsage, args, "create", "list", "verify")
	if err != nil {
		return err
	}
	var (
		list   config.Listing
		create config.PublisherCreate
		verify config.PublisherVerify
	)
	db, opts := &list.Database, list.Options()
	switch sub {
	case "create":
		db, opts = &create.Database, create.Options()
	case "verify":
		db, opts = &verify.Database, verify.Options()
	}
	fs := flagSet(env, "publisher "+sub)
	// NAME may come before the flags: registry publisher create acme --display "Acme".
	var name string
	if sub != "list" && len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	if err := parseFlags(env, fs, opts, args); err != nil {
		return err
	}
	if name == "" && fs.NArg() > 0 {
		name = fs.Arg(0)
	}
	if sub != "list" && name == "" {
		fmt.Fprintln(env.Stderr, publisherUsage)
		return errUsage
	}
	st, _, err := openStore(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	svc := registry.New(st, registry.Config{})
	switch sub {
	case "create":
		p, err := svc.CreatePublisher(ctx, name, create.Display)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "created publisher %s (%s); make its tokens with: registry token create --publisher %s --name NAME\n", p.Name, p.DisplayName, p.Name)
		return nil
	case "list":
		return publisherList(ctx, env, svc, list.JSON)
	}
	if verify.Domain == "" {
		fmt.Fprintln(env.Stderr, "registry publisher verify: --domain is required\n"+publisherUsage)
		return errUsage
	}
	if !verify.Check {
		c, err := svc.IssueChallenge(ctx, name, verify.Domain, verify.Scheme)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stderr, "serve this line at %s, then run: registry publisher verify %s --domain %s --check\n", c.URL, name, c.Domain)
		fmt.Fprintln(env.Stdout, c.Token)
		return nil
	}
	hc, err := agora.NewFetcher(agora.FetchPolicy{Allow: verify.OutboundAllow, Timeout: verifyTimeout})
	if err != nil {
		return err
	}
	p, err := svc.CheckChallenge(ctx, name, verify.Domain, verify.Scheme, hc)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "publisher %s is verified for %s\n", p.Name, p.VerifiedDomain)
	return nil
}

// publisherJSON is a publisher as `publisher list --json` prints it.
type publisherJSON struct {
	Name           string     `json:"name"`
	DisplayName    string     `json:"displayName"`
	VerifiedDomain string     `json:"verifiedDomain"`
	VerifiedAt     *time.Time `json:"verifiedAt"`
	CreatedAt      time.Time  `json:"createdAt"`
}

func publisherList(ctx context.Context, env *environment, svc *registry.Service, asJSON bool) error {
	ps, err := svc.ListPublishers(ctx)
	if err != nil {
		return err
	}
	if asJSON {
		out := make([]publisherJSON, 0, len(ps))
		for _, p := range ps {
			out = append(out, publisherJSON{p.Name, p.DisplayName, p.VerifiedDomain, entity.InUTC(p.VerifiedAt), p.CreatedAt.UTC()})
		}
		return printJSON(env, out)
	}
	w := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "NAME\tDISPLAY NAME\tVERIFIED DOMAIN\tCREATED")
	for _, p := range ps {
		domain := p.VerifiedDomain
		if domain == "" {
			domain = "-"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", p.Name, p.DisplayName, domain, p.CreatedAt.UTC().Format(time.RFC3339))
	}
	return w.Flush()
}
