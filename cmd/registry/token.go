package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/agora-registry/registry/internal/config"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/registry"
)

func init() {
	register(command{Name: "token", Summary: "token create|list|revoke: manage API tokens",
		Subs: map[string]string{"revoke": "registry token revoke [flags] ID"}, Run: tokenCmd})
}

func tokenCmd(ctx context.Context, env *environment, args []string) error {
	const usage = "usage: registry token create --name NAME [--publisher NAME] [--scope publish|admin,...] | list | revoke ID\n(database flags go after the subcommand: registry token list --data-dir DIR)"
	sub, args, err := subcommand(env, "token", usage, args, "create", "list", "revoke")
	if err != nil {
		return err
	}
	// create and list have flags of their own; revoke's help shows none.
	var create config.TokenCreate
	var list config.Listing
	db, opts := &create.Database, create.Database.Options()
	switch sub {
	case "create":
		opts = create.Options()
	case "list":
		db, opts = &list.Database, list.Options()
	}
	fs := flagSet(env, "token "+sub)
	if err := parseFlags(env, fs, opts, args); err != nil {
		return err
	}
	st, _, err := openStore(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	svc := registry.New(st, registry.Config{})
	switch sub {
	case "create":
		if create.IfMissing {
			if t, ok, err := liveToken(ctx, svc, create.Name); err != nil || ok {
				if ok {
					fmt.Fprintf(env.Stderr, "token %d %q exists already (publisher %s); its secret was shown when it was created, so none is printed (revoke it with registry token revoke %d to make a new one)\n",
						t.ID, t.Name, t.Publisher, t.ID)
				}
				return err
			}
		}
		return tokenCreate(ctx, env, svc, create.Publisher, create.Name, create.Scope)
	case "list":
		return tokenList(ctx, env, svc, list.JSON)
	default:
		return tokenRevoke(ctx, env, svc, fs)
	}
}

func tokenCreate(ctx context.Context, env *environment, svc *registry.Service, publisher, name, scopeList string) error {
	scopes, err := registry.ParseScopes(strings.Split(scopeList, ","))
	if err != nil {
		return err
	}
	t, err := svc.CreatePublisherToken(ctx, publisher, name, scopes)
	if err != nil {
		return err
	}
	// The secret alone goes to stdout (for scripts: TOKEN=$(registry token
	// create …)); the note goes to stderr.
	fmt.Fprintf(env.Stderr, "created token %d %q of publisher %s with scopes %s; it is shown only now, store it safely\n",
		t.Token.ID, t.Token.Name, t.Token.Publisher, scopeNames(t.Token.Scopes))
	fmt.Fprintln(env.Stdout, t.Secret)
	return nil
}

// liveToken finds the token of this name that is not revoked.
func liveToken(ctx context.Context, svc *registry.Service, name string) (entity.Token, bool, error) {
	ts, err := svc.ListTokens(ctx)
	if err != nil {
		return entity.Token{}, false, err
	}
	for _, t := range ts {
		if t.Name == name && t.RevokedAt == nil {
			return t, true, nil
		}
	}
	return entity.Token{}, false, nil
}

// tokenJSON is a token as `token list --json` prints it (never its hash).
type tokenJSON struct {
	ID         int64      `json:"id"`
	Name       string     `json:"name"`
	Publisher  string     `json:"publisher"`
	Scopes     []string   `json:"scopes"`
	CreatedAt  time.Time  `json:"createdAt"`
	LastUsedAt *time.Time `json:"lastUsedAt"`
	RevokedAt  *time.Time `json:"revokedAt"`
}

func tokenList(ctx context.Context, env *environment, svc *registry.Service, asJSON bool) error {
	ts, err := svc.ListTokens(ctx)
	if err != nil {
		return err
	}
	if asJSON {
		out := make([]tokenJSON, 0, len(ts))
		for _, t := range ts {
			scopes := make([]string, 0, len(t.Scopes))
			for _, s := range t.Scopes {
				scopes = append(scopes, string(s))
			}
			out = append(out, tokenJSON{t.ID, t.Name, t.Publisher, scopes, t.CreatedAt.UTC(), entity.InUTC(t.LastUsedAt), entity.InUTC(t.RevokedAt)})
		}
		return printJSON(env, out)
	}
	w := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tNAME\tPUBLISHER\tSCOPES\tCREATED\tLAST USED\tREVOKED")
	for _, t := range ts {
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, t.Name, t.Publisher, scopeNames(t.Scopes),
			t.CreatedAt.UTC().Format(time.RFC3339), timeOrDash(t.LastUsedAt), timeOrDash(t.RevokedAt))
	}
	return w.Flush()
}

func tokenRevoke(ctx context.Context, env *environment, svc *registry.Service, fs *flag.FlagSet) error {
	if fs.NArg() != 1 {
		fmt.Fprintln(env.Stderr, "usage: registry token revoke ID")
		return errUsage
	}
	id, err := strconv.ParseInt(fs.Arg(0), 10, 64)
	if err != nil {
		return fmt.Errorf("%q is not a token id (see registry token list)", fs.Arg(0))
	}
	if err := svc.RevokeToken(ctx, id); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "revoked token %d\n", id)
	return nil
}

func scopeNames(ss []entity.Scope) string {
	var out []string
	for _, s := range ss {
		out = append(out, string(s))
	}
	return strings.Join(out, ",")
}

func timeOrDash(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}
