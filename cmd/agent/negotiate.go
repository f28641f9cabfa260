package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/plural"
	"github.com/agora-registry/registry/internal/protocol"
)

// senderLLM is the sender's model (nil when no endpoint is configured).
func senderLLM(baseURL, model, apiKey string) *agora.LLM {
	if baseURL == "" {
		return nil
	}
	return &agora.LLM{BaseURL: baseURL, Model: model, APIKey: apiKey}
}

// taskSchema reads --task and the schema files.
func taskSchema(description, inputFile, outputFile string) (agora.TaskSchema, error) {
	ts := agora.TaskSchema{Description: description}
	for _, f := range []struct {
		path string
		dst  *json.RawMessage
	}{{inputFile, &ts.InputSchema}, {outputFile, &ts.OutputSchema}} {
		if f.path == "" {
			continue
		}
		raw, err := os.ReadFile(f.path)
		if err != nil {
			return ts, err
		}
		if !json.Valid(raw) {
			return ts, fmt.Errorf("%s is not JSON", f.path)
		}
		*f.dst = raw
	}
	return ts, nil
}

// chooseByLLM applies the fourth criterion to the protocols the target
// lists, ours, and the registries' matches for the task.
func chooseByLLM(ctx context.Context, llm agora.Completer, wk agora.WellKnownInfo, candidates []agora.Candidate,
	registries []string, regs []*agora.Registry, ts agora.TaskSchema, maxChecks int) (agora.Choice, error) {
	var pool []agora.Candidate
	if r, err := senderResolver(registries); err == nil {
		pool = agora.ListedCandidates(ctx, r, wk, maxChecks)
	} else {
		fmt.Fprintln(os.Stderr, "note: the target's protocols are not judged:", err)
	}
	pool = append(pool, candidates...)
	pool = append(pool, matchedCandidates(ctx, regs, ts, maxChecks)...)
	choice, verdicts, err := agora.JudgeCandidates(ctx, llm, wk, pool, ts, maxChecks)
	for _, v := range verdicts {
		fmt.Fprintf(os.Stderr, "LLM: protocol %s is %s\n", v.Digest.Hex(), v.Suitability)
	}
	return choice, err
}

// senderResolver fetches and verifies the target's documents through the
// SSRF guard (the sender's registries opened); it caches nothing.
func senderResolver(registries []string) (*agora.Resolver, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return agora.NewResolver(agora.ResolverOptions{CacheDir: filepath.Join(dir, "agora-agent-send"), Registries: registries,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
}

// negotiate agrees on a protocol with the target, publishes it when
// publish is set and returns it as a candidate with its sources. Without
// publish the document goes inline: its text was written by a model the
// target talked to, and publishing is permanent and under our name.
func negotiate(ctx context.Context, client *http.Client, llm agora.Completer, target string, ts agora.TaskSchema,
	regs []*agora.Registry, rounds int, publish bool) (agora.Candidate, []string, bool, error) {
	n := &agora.Negotiator{LLM: llm, Client: client, MaxRounds: rounds}
	agreed, err := n.Negotiate(ctx, target, ts)
	if err != nil {
		return agora.Candidate{}, nil, false, fmt.Errorf("negotiation with %s: %w", target, err)
	}
	fmt.Fprintf(os.Stderr, "negotiated protocol %s (%s) in %s\n", agreed.Digest.Hex(), protocol.CleanTitle(agreed.Meta.Name), plural.Of(agreed.Rounds, "round"))
	if !publish {
		regs = nil
	}
	sources, err := agora.PublishAgreed(ctx, agreed.Document, regs)
	if err != nil {
		fmt.Fprintln(os.Stderr, "note:", err, "- sending the document inline")
	} else if len(regs) > 0 {
		fmt.Fprintln(os.Stderr, "published to", sources[0])
	}
	c := agora.Candidate{Digest: agreed.Digest, Document: agreed.Document, Title: agreed.Meta.Name,
		Description: agreed.Meta.Description, Implemented: true}
	return c, sources, agreed.Meta.Multiround, nil
}

// matchedCandidates are the documents the registries' match ranks best for
// the task (agora.MatchCandidates), at most limit; it says on stderr what
// each registry gave.
func matchedCandidates(ctx context.Context, regs []*agora.Registry, ts agora.TaskSchema, limit int) []agora.Candidate {
	if len(regs) == 0 || ts.Description == "" && len(ts.InputSchema) == 0 && len(ts.OutputSchema) == 0 {
		return nil
	}
	found, err := agora.MatchCandidates(ctx, regs, ts, limit)
	if err != nil {
		fmt.Fprintln(os.Stderr, "note: matching the task at the registries:", agora.RedactError(err))
	}
	for _, c := range found {
		fmt.Fprintf(os.Stderr, "match: protocol %s (%s)\n", c.Digest.Hex(), protocol.CleanTitle(c.Title))
	}
	return found
}
