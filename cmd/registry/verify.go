package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/agora-registry/registry/internal/cli"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/agora-registry/registry/internal/client"
	"github.com/agora-registry/registry/internal/config"
	"github.com/agora-registry/registry/internal/plural"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/translog"
)

func init() {
	register(command{name: "verify", summary: "prove HASH... are in a registry's transparency log, and that the log never forked",
		synopsis: "registry verify [--registry URL] [--key KEY] [--state FILE] HASH...", run: verifyCmd})
}

// verifyCmd audits a registry's log: one line per hash, a non-zero exit
// when any is not proved, and a loud error on a fork.
func verifyCmd(ctx context.Context, env *environment, args []string) error {
	var cfg config.Verify
	fs := flagSet(env, "verify")
	if err := parseFlags(env, fs, cfg.Options(), args); err != nil {
		return err
	}
	var hashes []protocol.Digest
	for _, a := range fs.Args() {
		d, err := protocol.ParseDigest(a)
		if err != nil {
			return cli.UsageError{Err: fmt.Errorf("%s: %w", a, err)}
		}
		hashes = append(hashes, d)
	}
	c, err := client.New(cfg.Registry, client.NewHTTP(clientTimeout, clientRedirects))
	if err != nil {
		return err
	}
	statePath, err := verifyStatePath(cfg)
	if err != nil {
		return err
	}
	st, err := translog.LoadState(statePath)
	if err != nil {
		return err
	}
	switch {
	case cfg.Key != "" && st.VerifierKey != "" && cfg.Key != st.VerifierKey:
		return fmt.Errorf("--key is not the key pinned in %s; if the operator rotated the key, remove that file", statePath)
	case cfg.Key != "":
		st.VerifierKey = cfg.Key
	case st.VerifierKey == "":
		wk, err := c.WellKnown(ctx)
		if err != nil {
			return fmt.Errorf("reading the registry's verifier key: %w", err)
		}
		if wk.Log == nil || wk.Log.VerifierKey == "" {
			return errors.New("the registry announces no transparency log")
		}
		st.VerifierKey = wk.Log.VerifierKey
		fmt.Fprintf(env.stderr, "registry verify: trusting the registry's own key on first use: %s (pass --key to check it against the operator's)\n", st.VerifierKey)
	}
	a, err := translog.RunAudit(ctx, c, st, hashes)
	if errors.Is(err, translog.ErrFork) {
		return fmt.Errorf("LOG FORK DETECTED at %s: %w (state kept in %s)", c.Origin(), err, statePath)
	}
	if err != nil {
		return err
	}
	if err := a.State.Save(statePath); err != nil {
		return fmt.Errorf("saving the state file: %w", err)
	}
	fmt.Fprintf(env.stdout, "checkpoint %s size %d root %s", a.Checkpoint.Origin, a.Checkpoint.N, a.Checkpoint.Hash)
	if a.Previous != nil {
		fmt.Fprintf(env.stdout, " (consistent with size %d seen before)", a.Previous.N)
	}
	fmt.Fprintln(env.stdout)
	failed := 0
	for _, r := range a.Results {
		if r.Err != nil {
			failed++
			fmt.Fprintf(env.stdout, "%s FAIL %v\n", r.Digest.Hex(), r.Err)
			continue
		}
		fmt.Fprintf(env.stdout, "%s ok record %d %s %s\n", r.Digest.Hex(), r.Proved.Index, r.Proved.Record.Event, r.Proved.Record.Time.Format("2006-01-02T15:04:05Z07:00"))
	}
	if failed > 0 {
		return fmt.Errorf("%d of %s not proved", failed, plural.Count(len(hashes), "hash", "hashes"))
	}
	return nil
}

// verifyStatePath is --state, or one file per registry host under the
// user's config directory.
func verifyStatePath(cfg config.Verify) (string, error) {
	if cfg.State != "" {
		return cfg.State, nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no config directory for the state file; pass --state: %w", err)
	}
	u, err := url.Parse(cfg.Registry)
	if err != nil {
		return "", err
	}
	name := strings.NewReplacer(":", "_", "/", "_").Replace(u.Host)
	return filepath.Join(dir, "agora-registry", "verify", name+".json"), nil
}
