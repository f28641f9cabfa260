package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/cli"
	"github.com/agora-registry/registry/internal/client"
	"github.com/agora-registry/registry/internal/config"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/regularfile"
	"github.com/agora-registry/registry/internal/translog"
)

func init() {
	register(command{Name: "verify", Summary: "audit a registry's transparency log: no fork, and what it serves is what it logged",
		Synopsis: "registry verify [--registry URL] [--key KEY] [--state FILE] [--witness-key VKEY... --quorum N] [--sample N | --all] [HASH...]\n       registry verify --proof FILE --key KEY [--witness-key VKEY... --quorum N] DOCUMENT\n\n" + verifyHelp,
		Run:      verifyExit})
}

// verifyExit runs verifyCmd; any failure that is not a proven
// inconsistency (a state file it cannot read or write, a key that is not
// the one pinned) is exit 2, "could not check", as a usage error is.
func verifyExit(ctx context.Context, env *environment, args []string) error {
	err := verifyCmd(ctx, env, args)
	var exit cli.ExitError
	var usage cli.UsageError
	if err == nil || errors.As(err, &exit) || errors.As(err, &usage) || errors.Is(err, flag.ErrHelp) || errors.Is(err, cli.ErrUsage) {
		return err
	}
	return cli.ExitError{Code: verifyUnchecked, Err: err}
}

// verifyHelp is the exit status mapping, for `registry verify --help`.
const verifyHelp = `Exit status (docs/operations.md):
  0  every check passed
  1  proven: a fork (two checkpoints the log signed that no proof reconciles), a
     failing proof against a signed checkpoint, served data that contradicts the
     log; with --proof, the proof does not prove DOCUMENT against a checkpoint
     that meets the policy (a record of another hash or other bytes, a failing
     inclusion proof)
  2  could not check: network, 5xx, malformed answers; a checkpoint without the
     log's signature or without --quorum valid cosignatures of the --witness-key
     witnesses (too few is never a fork), or carrying a configured witness's
     cosignature that does not verify (tampering on the way, or a lying server:
     nothing is concluded about the log); with --proof, an unreadable proof`

// Exit statuses of `registry verify` (docs/operations.md).
const (
	verifyInconsistent = 1 // proven: a fork, a failing proof, served data that contradicts the log
	verifyUnchecked    = 2 // could not check: network, 5xx, timeouts, malformed answers
)

// verifyBackoff is the wait before the first retry of a transient failure.
const verifyBackoff = 250 * time.Millisecond

// verifyCmd audits a registry's log: the checkpoint's consistency with the
// one remembered, every record against the signed tree, and the documents
// named (or a sample) as served against their records. One line per
// document; the exit status says what was found.
func verifyCmd(ctx context.Context, env *environment, args []string) error {
	var cfg config.Verify
	fs := flagSet(env, "verify")
	if err := parseFlags(env, fs, cfg.Options(), args); err != nil {
		return err
	}
	if len(cfg.WitnessKeys) > 0 && cfg.Quorum == 0 {
		return cli.UsageError{Err: errors.New("--witness-key needs --quorum N (1 or more): how many of the witnesses must have cosigned")}
	}
	if cfg.Quorum > len(cfg.WitnessKeys) {
		return cli.UsageError{Err: fmt.Errorf("--quorum %d needs at least %d --witness-key", cfg.Quorum, cfg.Quorum)}
	}
	if cfg.Proof != "" {
		return verifyProof(env, cfg, fs.Args())
	}
	var hashes []protocol.Digest
	for _, a := range fs.Args() {
		d, err := protocol.ParseDigest(a)
		if err != nil {
			return cli.UsageError{Err: fmt.Errorf("%s: %w", a, err)}
		}
		hashes = append(hashes, d)
	}
	unchecked := func(err error) error { return cli.ExitError{Code: verifyUnchecked, Err: err} }
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
	reg := translog.Retry{Registry: c, Attempts: cfg.Retries, Backoff: verifyBackoff}
	switch {
	case cfg.Key != "" && st.VerifierKey != "" && cfg.Key != st.VerifierKey:
		return fmt.Errorf("--key is not the key pinned in %s; if the operator rotated the key, remove that file", statePath)
	case cfg.Key != "":
		st.VerifierKey = cfg.Key
	case st.VerifierKey == "":
		wk, err := translog.Retried(ctx, reg, func() (agora.RegistryWellKnown, error) { return c.WellKnown(ctx) })
		if err != nil {
			return unchecked(fmt.Errorf("reading the registry's verifier key: %w", err))
		}
		if wk.Log == nil || wk.Log.VerifierKey == "" {
			return unchecked(errors.New("the registry announces no transparency log"))
		}
		st.VerifierKey = wk.Log.VerifierKey
		fmt.Fprintf(env.Stderr, "registry verify: trusting the registry's own key on first use: %s (pass --key to check it against the operator's)\n", st.VerifierKey)
	}
	if err := (agora.WitnessPolicy{LogKey: st.VerifierKey, WitnessKeys: cfg.WitnessKeys, Quorum: cfg.Quorum}).Check(); err != nil {
		return cli.UsageError{Err: err}
	}
	a, err := translog.RunAudit(ctx, reg, st, translog.AuditOptions{Hashes: hashes, Sample: cfg.Sample, All: cfg.All, Settle: cfg.Settle,
		WitnessKeys: cfg.WitnessKeys, Quorum: cfg.Quorum})
	if a.Fork != nil {
		fmt.Fprintf(env.Stdout, "LOG FORK DETECTED at %s: %v\n\nthe checkpoint seen before:\n%s\nthe checkpoint served now:\n%s\nstate kept unchanged in %s\n",
			c.Origin(), a.Fork.Err, a.Fork.Older, a.Fork.Newer, statePath)
		return cli.ExitError{Code: verifyInconsistent, Err: fmt.Errorf("LOG FORK DETECTED at %s", c.Origin())}
	}
	if err != nil {
		if translog.Proven(err) {
			return cli.ExitError{Code: verifyInconsistent, Err: err}
		}
		return unchecked(err)
	}
	if err := a.State.Save(statePath); err != nil {
		return fmt.Errorf("saving the state file: %w", err)
	}
	fmt.Fprintf(env.Stdout, "checkpoint %s size %d root %s", a.Checkpoint.Origin, a.Checkpoint.N, a.Checkpoint.Hash)
	if a.Previous != nil {
		fmt.Fprintf(env.Stdout, " (consistent with size %d seen before)", a.Previous.N)
	}
	fmt.Fprintf(env.Stdout, "; %d records checked against it\n", a.Scanned)
	if len(cfg.WitnessKeys) > 0 {
		fmt.Fprintf(env.Stdout, "cosigned by %d of %d witnesses (quorum %d): %s\n", len(a.Witnesses), len(cfg.WitnessKeys), cfg.Quorum, strings.Join(a.Witnesses, ", "))
	}
	switch {
	case a.Feed == nil:
		fmt.Fprintln(env.Stdout, "change feed ok")
	case translog.Proven(a.Feed):
		fmt.Fprintf(env.Stdout, "change feed MISMATCH %v\n", a.Feed)
	default:
		fmt.Fprintf(env.Stdout, "change feed UNCHECKED %v\n", a.Feed)
	}
	for _, r := range a.Results {
		switch {
		case r.Err == nil:
			fmt.Fprintf(env.Stdout, "%s ok record %d %s %s%s\n", r.Digest.Hex(), r.Index, r.Status,
				r.Record.Time.Format("2006-01-02T15:04:05Z07:00"), attested(r.Record))
		case translog.Proven(r.Err):
			fmt.Fprintf(env.Stdout, "%s MISMATCH %v\n", r.Digest.Hex(), r.Err)
		default:
			fmt.Fprintf(env.Stdout, "%s UNCHECKED %v\n", r.Digest.Hex(), r.Err)
		}
	}
	switch a.Exit() {
	case verifyInconsistent:
		return cli.ExitError{Code: verifyInconsistent, Err: errors.New("the registry contradicts its own log (lines marked MISMATCH)")}
	case verifyUnchecked:
		return unchecked(errors.New("some checks could not be made (lines marked UNCHECKED); nothing inconsistent was found"))
	}
	return nil
}

// attested is a record's publisher, when the record attests one.
func attested(r agora.LogRecord) string {
	at := r.Attested
	if at.Publisher == "" {
		return ""
	}
	out := " publisher " + at.Publisher
	if at.PublisherDomain != "" {
		out += " (" + at.PublisherDomain + ")"
	}
	return out
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

// maxProofDocumentBytes bounds the DOCUMENT `verify --proof` reads.
const maxProofDocumentBytes = 64 << 20

// verifyProof checks a c2sp.org/tlog-proof file offline against a document
// file: exit 0 proved, 1 refuted (the checkpoint meets the policy but the
// proof does not prove the document), 2 not established.
func verifyProof(env *environment, cfg config.Verify, args []string) error {
	if len(args) != 1 {
		return cli.UsageError{Err: errors.New("--proof checks one DOCUMENT file: registry verify --proof FILE --key KEY DOCUMENT")}
	}
	if cfg.Key == "" {
		return cli.UsageError{Err: errors.New("--proof needs --key: the log's verifier key, from its operator (nothing is fetched)")}
	}
	unchecked := func(err error) error { return cli.ExitError{Code: verifyUnchecked, Err: err} }
	proof, err := readBounded(cfg.Proof, agora.MaxTLogProofBytes)
	if err != nil {
		return unchecked(fmt.Errorf("the proof: %w", err))
	}
	doc, err := readBounded(args[0], maxProofDocumentBytes)
	if err != nil {
		return unchecked(fmt.Errorf("the document: %w", err))
	}
	p, err := agora.VerifyDocumentProof(proof, doc, agora.WitnessPolicy{LogKey: cfg.Key, WitnessKeys: cfg.WitnessKeys, Quorum: cfg.Quorum})
	switch {
	case err == nil:
		fmt.Fprintf(env.Stdout, "%s ok: its publish (%s) is record %d of %s, tree size %d root %s",
			p.Record.Digest.Hex(), p.Record.Time.Format(time.RFC3339), p.Index, p.Checkpoint.Origin, p.Checkpoint.N, p.Checkpoint.Hash)
		if len(p.Checkpoint.Witnesses) > 0 {
			fmt.Fprintf(env.Stdout, ", cosigned by %s", strings.Join(p.Checkpoint.Witnesses, ", "))
		}
		fmt.Fprintln(env.Stdout)
		return nil
	case errors.Is(err, agora.ErrLogNotProved):
		fmt.Fprintf(env.Stdout, "PROOF REFUTED %v\n", err)
		return cli.ExitError{Code: verifyInconsistent, Err: errors.New("the proof does not prove this document")}
	}
	fmt.Fprintf(env.Stdout, "NOT PROVED %v\n", err)
	return unchecked(errors.New("the proof could not be established"))
}

// readBounded reads a regular file of at most limit bytes.
func readBounded(path string, limit int) ([]byte, error) {
	f, _, err := regularfile.Open(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err == nil && len(b) > limit {
		err = fmt.Errorf("%s is larger than %d bytes", path, limit)
	}
	return b, err
}
