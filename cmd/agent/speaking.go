package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/agent"
	"github.com/agora-registry/registry/internal/cli"
	"github.com/agora-registry/registry/internal/plural"
	"github.com/agora-registry/registry/internal/protocol"
)

// Bounds of --speaking: one page of each registry's directory is read, and
// at most maxSpeakingTries of its agents are asked for their /.wellknown.
const (
	speakingPage     = 100
	maxSpeakingTries = 3
)

// targetFlags checks --to and --speaking, and makes the --speaking hash
// the first protocol offered.
func targetFlags(cfg *agent.SendConfig) error {
	switch {
	case cfg.To != "" && cfg.Speaking != "":
		return cli.UsageError{Err: errors.New("--to and --speaking exclude each other")}
	case cfg.Speaking != "" && len(cfg.Registries) == 0:
		return cli.UsageError{Err: errors.New("--speaking needs a --registry whose directory to ask")}
	case cfg.To == "" && cfg.Speaking == "":
		return cli.UsageError{Err: errors.New("--to is required (or --speaking HASH with --registry)")}
	case cfg.Speaking == "":
		return nil
	}
	d, err := agora.ParseDigest(cfg.Speaking)
	if err != nil {
		return cli.UsageError{Err: fmt.Errorf("--speaking: %w", err)}
	}
	if !slices.ContainsFunc(cfg.Protocols, func(p string) bool { q, err := agora.ParseDigest(p); return err == nil && q == d }) {
		cfg.Protocols = append([]string{d.Hex()}, cfg.Protocols...)
	}
	return nil
}

// targetClient is the client the target is reached with: a plain one for
// the --to the user typed; for --speaking, it picks the target (setting
// cfg.To) and reaches it through the SSRF guard, since a directory, not
// the user, chose its address.
func targetClient(ctx context.Context, std *cli.IO, cfg *agent.SendConfig) (*http.Client, error) {
	if cfg.Speaking == "" {
		return &http.Client{Timeout: cfg.Timeout}, nil
	}
	guarded, err := agora.NewHTTPClient(agora.FetchPolicy{Allow: cfg.Allow, Timeout: cfg.Timeout})
	if err != nil {
		return nil, err
	}
	d, _ := agora.ParseDigest(cfg.Speaking) // checked by targetFlags
	regs, err := registryClients(cfg.Registries, std.Getenv(agent.RegistryTokenEnv))
	if err != nil {
		return nil, err
	}
	pick, err := pickSpeaker(ctx, std, guarded, regs, d)
	if err != nil {
		return nil, err
	}
	cfg.To = pick.URL
	return guarded, nil
}

type speaker struct {
	agora.Agent
	registry string
}

// pickSpeaker asks every registry for agents speaking d, most recently
// seen first, and takes the first whose /.wellknown (read through hc)
// still lists d; it says on stderr which it took and why others were
// passed over.
func pickSpeaker(ctx context.Context, std *cli.IO, hc *http.Client, regs []*agora.Registry, d protocol.Digest) (speaker, error) {
	var found []speaker
	var errs []error
	for _, reg := range regs {
		page, err := reg.Agents(ctx, agora.AgentQuery{Speaks: d, Limit: speakingPage})
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", reg.Origin(), err))
			continue
		}
		for _, a := range page.Items {
			if !slices.ContainsFunc(found, func(s speaker) bool { return s.URL == a.URL }) {
				found = append(found, speaker{a, reg.Origin()})
			}
		}
	}
	slices.SortStableFunc(found, func(a, b speaker) int { return seenAfter(b.LastSeen, a.LastSeen) })
	for i, s := range found {
		if i == maxSpeakingTries {
			break
		}
		wk, err := agora.FetchWellKnown(ctx, hc, s.URL)
		if err == nil && wk.Supported[d] == nil {
			err = errors.New("its well-known list no longer has the protocol")
		}
		if err != nil {
			fmt.Fprintf(std.Stderr, "note: passing over %s: %v\n", protocol.CleanTitle(s.URL), agora.RedactError(err))
			continue
		}
		fmt.Fprintf(std.Stderr, "target %s (%s), listed by %s as speaking %s, %s\n", protocol.CleanTitle(s.URL), protocol.CleanTitle(s.Name),
			s.registry, d.Hex(), seenAgo(s.LastSeen))
		return s, nil
	}
	if len(found) > 0 {
		return speaker{}, fmt.Errorf("none of the %s listed as speaking %s answered with it (tried %d)", plural.Of(len(found), "agent"), d.Hex(), min(len(found), maxSpeakingTries))
	}
	if err := errors.Join(errs...); err != nil {
		return speaker{}, fmt.Errorf("asking the registries for agents speaking %s: %w", d.Hex(), err)
	}
	return speaker{}, fmt.Errorf("no registered agent speaks %s", d.Hex())
}

// seenAfter orders last-seen times, never seen last.
func seenAfter(a, b *time.Time) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	return a.Compare(*b)
}

func seenAgo(t *time.Time) string {
	if t == nil {
		return "never seen by it"
	}
	return "last seen " + time.Since(*t).Round(time.Second).String() + " ago"
}
