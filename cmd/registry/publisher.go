package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/agora-registry/registry/internal/agent/safehttp"
	"github.com/agora-registry/registry/internal/config"
	"github.com/agora-registry/registry/internal/registry"
)

func init() {
	register(command{name: "publisher", summary: "publisher create|list|verify: manage publisher accounts", run: publisherCmd})
}

// verifyTimeout caps one domain verification fetch, redirects included.
const verifyTimeout = 10 * time.Second

const publisherUsage = `usage: registry publisher create NAME [--display "Display Name"] | list | verify NAME --domain DOMAIN [--check]
(database flags go after the subcommand: registry publisher list --data-dir DIR)`

func publisherCmd(ctx context.Context, env *environment, args []string) error {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
		fmt.Fprintln(env.stdout, publisherUsage)
		return nil
	}
	if len(args) == 0 {
		fmt.Fprintln(env.stderr, publisherUsage)
		return errUsage
	}
	sub, args := args[0], args[1:]
	if sub != "create" && sub != "list" && sub != "verify" {
		fmt.Fprintf(env.stderr, "registry publisher: unknown subcommand %q: use create, list or verify\n%s\n", sub, publisherUsage)
		return errUsage
	}
	var db config.Database
	fs := flagSet(env, "publisher "+sub)
	display, domain, scheme, allow, check := new(string), new(string), new(string), new(string), new(bool)
	switch sub {
	case "create":
		display = fs.String("display", "", "the name pages show for the publisher")
	case "verify":
		domain = fs.String("domain", "", "the domain to prove: the registry fetches https://DOMAIN"+registry.WellKnownPublisherPath)
		check = fs.Bool("check", false, "fetch the challenge issued before and mark the domain verified when it is served")
		scheme = fs.String("scheme", "https", "the scheme of the fetch (http only for loopback tests and private deployments)")
		allow = fs.String("outbound-allow", env.getenv("REGISTRY_OUTBOUND_ALLOW"), "comma-separated CIDRs, IPs, hosts or host:port pairs the fetch may reach although private or loopback (default: REGISTRY_OUTBOUND_ALLOW)")
	}
	// NAME may come before the flags: registry publisher create acme --display "Acme".
	var name string
	if sub != "list" && len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	if err := parseFlags(env, fs, db.Options(), args); err != nil {
		return err
	}
	if name == "" && fs.NArg() > 0 {
		name = fs.Arg(0)
	}
	if sub != "list" && name == "" {
		fmt.Fprintln(env.stderr, publisherUsage)
		return errUsage
	}
	st, _, err := openStore(ctx, db)
	if err != nil {
		return err
	}
	defer st.Close()
	svc := registry.New(st, registry.Config{})
	switch sub {
	case "create":
		p, err := svc.CreatePublisher(ctx, name, *display)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.stdout, "created publisher %s (%s); make its tokens with: registry token create --publisher %s --name NAME\n", p.Name, p.DisplayName, p.Name)
		return nil
	case "list":
		return publisherList(ctx, env, svc)
	}
	if *domain == "" {
		fmt.Fprintln(env.stderr, "registry publisher verify: --domain is required\n"+publisherUsage)
		return errUsage
	}
	if !*check {
		c, err := svc.IssueChallenge(ctx, name, *domain, *scheme)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.stderr, "serve this line at %s, then run: registry publisher verify %s --domain %s --check\n", c.URL, name, c.Domain)
		fmt.Fprintln(env.stdout, c.Token)
		return nil
	}
	hc, err := safehttp.New(safehttp.Options{Allow: splitList(*allow), Timeout: verifyTimeout})
	if err != nil {
		return err
	}
	p, err := svc.CheckChallenge(ctx, name, *domain, *scheme, hc)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "publisher %s is verified for %s\n", p.Name, p.VerifiedDomain)
	return nil
}

func publisherList(ctx context.Context, env *environment, svc *registry.Service) error {
	ps, err := svc.ListPublishers(ctx)
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(env.stdout, 0, 4, 2, ' ', 0)
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

// splitList reads a comma-separated list, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}
