package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/config"
	"github.com/agora-registry/registry/internal/follow"
	"github.com/agora-registry/registry/internal/store"
)

func init() {
	register(command{Name: "follow", Summary: "show a stopped follower's fork evidence, and clear it with --yes",
		Synopsis: "registry follow reset UPSTREAM [--yes]",
		Subs:     map[string]string{"reset": "registry follow reset [flags] UPSTREAM"}, Run: followCmd})
}

// errNotConfirmed is a reset asked without --yes: the evidence was shown,
// nothing changed.
var errNotConfirmed = apperr.New(apperr.Invalid, "not_confirmed", "nothing changed: read the evidence above, then run the command again with --yes to resume this upstream")

func followCmd(ctx context.Context, env *environment, args []string) error {
	const usage = "usage: registry follow reset UPSTREAM [--yes]\n(database flags go after the subcommand: registry follow reset --data-dir DIR URL)"
	_, args, err := subcommand(env, "follow", usage, args, "reset")
	if err != nil {
		return err
	}
	return followReset(ctx, env, usage, args)
}

// followReset prints an upstream's stored fork evidence and, with --yes,
// clears it: the follower (a running one within its backoff) replays the
// upstream's log from the start, trusting its current checkpoint.
func followReset(ctx context.Context, env *environment, usage string, args []string) error {
	var c config.FollowReset
	fs := flagSet(env, "follow reset")
	if err := parseFlags(env, fs, c.Options(), args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(env.Stderr, usage)
		return errUsage
	}
	upstream := fs.Arg(0)
	st, _, err := openStore(ctx, c.Database)
	if err != nil {
		return err
	}
	defer st.Close()
	fst, err := st.FollowState(ctx, upstream)
	if errors.Is(err, store.ErrNotFound) {
		return store.ErrNotFound.With("this registry has never followed " + upstream + " (the URL must be the --follow value, exactly)")
	}
	if err != nil {
		return err
	}
	if !fst.Forked {
		fmt.Fprintf(env.Stdout, "%s is not stopped: %d records applied; nothing to reset\n", upstream, fst.Applied)
		return nil
	}
	fmt.Fprintf(env.Stdout, "%s was STOPPED after a fork, with %d records applied. Evidence:\n", upstream, fst.Applied)
	if ev, err := follow.ParseEvidence(fst.Evidence); err == nil && fst.Evidence != "" {
		fmt.Fprintln(env.Stdout, ev.String())
	} else {
		fmt.Fprintln(env.Stdout, "(no evidence stored)")
	}
	if !c.Yes {
		return errNotConfirmed
	}
	fst.Forked, fst.Evidence, fst.Checkpoint, fst.Applied = false, "", []byte{}, 0
	if err := st.SaveFollowState(ctx, fst); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "reset: %s will be replayed from its first record against its current checkpoint\n", upstream)
	return nil
}
