package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/agent"
	"github.com/agora-registry/registry/internal/cli"
	"github.com/agora-registry/registry/internal/plural"
	"github.com/agora-registry/registry/internal/protocol"
)

func init() {
	register(cli.Command{Name: "send", Summary: "send a transaction to an agent", Synopsis: "agent send --to URL [--protocol FILE|HASH]... --body TEXT [flags]", Run: send})
}

func send(ctx context.Context, std *cli.IO, args []string) error {
	var cfg agent.SendConfig
	if _, err := parse(std, "send", cfg.Options(), args); err != nil {
		return err
	}
	if err := targetFlags(&cfg); err != nil {
		return err
	}
	to, body, bodyFile, task, publish, natural, multiround, conversation, end := &cfg.To, &cfg.Body, &cfg.BodyFile, &cfg.Task, &cfg.Publish, &cfg.Natural, &cfg.Multi, &cfg.Conversation, &cfg.End
	protocols, registries := cfg.Protocols, cfg.Registries
	spelling, err := agora.ParseSpelling(cfg.HashSpelling)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	client, err := targetClient(ctx, std, &cfg)
	if err != nil {
		return err
	}

	if *end != "" {
		reply, err := agora.End(ctx, client, *to, *end)
		return printReply(std, reply, err)
	}
	text, err := readBody(std, *body, *bodyFile)
	if err != nil {
		return err
	}
	if *conversation != "" {
		reply, err := agora.Continue(ctx, client, *to, *conversation, text)
		return printReply(std, reply, err)
	}

	regs, err := registryClients(registries, std.Getenv(agent.RegistryTokenEnv))
	if err != nil {
		return err
	}
	candidates, err := loadCandidates(ctx, regs, protocols)
	if err != nil {
		return err
	}
	candidates = agora.CheckLifecycle(ctx, regs, candidates)
	noteDeprecations(std, candidates)
	tx := agora.Outgoing{Body: text, Multiround: *multiround}
	wk, wkErr := agora.FetchWellKnown(ctx, client, *to)
	if wkErr != nil {
		fmt.Fprintln(std.Stderr, "note:", wkErr, "- choosing without it")
	}
	if replaced, subs := agora.PreferReplacements(wk, candidates); len(subs) > 0 {
		for _, s := range subs {
			fmt.Fprintf(std.Stderr, "using %s instead of the deprecated %s: the target lists the replacement\n", s.Replacement.Hex(), s.Deprecated.Hex())
		}
		candidates = agora.CheckLifecycle(ctx, regs, replaced) // the replacements' titles
	}
	choice, err := agora.ChooseProtocol(wk, candidates, *task)
	var sources []string
	if llm := senderLLM(cfg.LLMBaseURL, cfg.LLMModel, std.Getenv(agent.DefaultLLMKeyEnv)); llm != nil && (err != nil || choice.Criterion == 0) {
		ts, terr := taskSchema(*task, cfg.InputSchema, cfg.OutputSchema)
		if terr != nil {
			return terr
		}
		if choice, err = chooseByLLM(ctx, llm, wk, candidates, registries, regs, ts, cfg.MaxChecks); err != nil && cfg.Negotiate {
			var multi bool
			if choice.Candidate, sources, multi, err = negotiate(ctx, client, llm, *to, ts, regs, cfg.MaxRounds, *publish); err != nil {
				return err
			}
			choice.Reason, tx.Multiround = "negotiated with the target", tx.Multiround || multi
		}
	} else if cfg.Negotiate && (err != nil || choice.Criterion == 0) {
		return errors.New("--negotiate needs an LLM: give --llm-base-url or set AGENT_LLM_BASE_URL")
	}
	switch {
	case err == nil:
		hash := agora.WireHash(wk, choice.Candidate.Digest, spelling)
		tx.ProtocolHash = &hash
		if sources == nil {
			sources = agora.SourcesFor(ctx, choice.Candidate, regs, *publish)
		}
		tx.ProtocolSources = sources
		fmt.Fprintf(std.Stderr, "protocol %s (%s): %s\n", hash, protocol.CleanTitle(choice.Candidate.Title), choice.Reason)
	case *natural:
		fmt.Fprintln(std.Stderr, "no protocol chosen: sending natural language")
	default:
		return noProtocolError(wk, candidates, err)
	}
	reply, err := agora.Send(ctx, client, *to, tx)
	return printReply(std, reply, err)
}

func readBody(std *cli.IO, body, file string) (string, error) {
	switch {
	case file == "-":
		b, err := io.ReadAll(io.LimitReader(std.Stdin, agent.DefaultMaxRequestBytes+1))
		return string(b), err
	case file != "":
		b, err := os.ReadFile(file)
		return string(b), err
	}
	return body, nil
}

func registryClients(bases []string, token string) ([]*agora.Registry, error) {
	var allow []string
	for _, b := range bases {
		u, err := url.Parse(b)
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("registry %q is not a URL", b)
		}
		allow = append(allow, u.Hostname())
	}
	// The sender's own registries are trusted, so their hosts are opened.
	guarded, err := agora.NewHTTPClient(agora.FetchPolicy{Allow: allow})
	if err != nil {
		return nil, err
	}
	var regs []*agora.Registry
	for _, b := range bases {
		reg, err := agora.NewRegistry(b, guarded)
		if err != nil {
			return nil, err
		}
		reg.Token = token
		regs = append(regs, reg)
	}
	return regs, nil
}

// loadCandidates reads --protocol arguments: document files, or hashes
// (their titles and lifecycle come from the registries, CheckLifecycle).
func loadCandidates(ctx context.Context, regs []*agora.Registry, args []string) ([]agora.Candidate, error) {
	var out []agora.Candidate
	for _, arg := range args {
		if raw, err := os.ReadFile(arg); err == nil {
			doc, err := protocol.Prepare(raw, 0)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", arg, err)
			}
			out = append(out, agora.Candidate{Digest: doc.Sums.SHA1, Document: raw, Title: doc.Metadata.Title,
				Description: doc.Metadata.Description, Tags: doc.Metadata.Tags, Implemented: true})
			continue
		}
		d, err := agora.ParseDigest(arg)
		if err != nil {
			if d, err = lookupPrefix(ctx, regs, arg); err != nil {
				return nil, fmt.Errorf("--protocol %q is neither a readable file nor a hash: %w", arg, err)
			}
		}
		out = append(out, agora.Candidate{Digest: d, Implemented: true})
	}
	return out, nil
}

// noteDeprecations says on stderr which candidates a registry deprecated.
func noteDeprecations(std *cli.IO, cs []agora.Candidate) {
	for _, c := range cs {
		if dep := c.Deprecation; dep != nil {
			line := fmt.Sprintf("note: protocol %s is deprecated: %q", c.Digest.Hex(), dep.Message)
			if dep.Replacement != nil {
				line += "; its publisher names " + dep.Replacement.Hex() + " instead"
			}
			fmt.Fprintln(std.Stderr, line)
		}
	}
}

// printReply prints the answer's body on stdout; anything but success also
// goes to stderr and exits 1.
func printReply(std *cli.IO, r agora.Reply, err error) error {
	if err != nil {
		return err
	}
	fmt.Fprintln(std.Stdout, r.Body)
	if r.ConversationID != "" {
		fmt.Fprintln(std.Stderr, "conversationId:", protocol.CleanTitle(r.ConversationID)) // the target's text: no escapes to the terminal
	}
	if r.Status != agora.StatusSuccess {
		msg, _ := json.Marshal(r.Error)
		return fmt.Errorf("status: %s, error: %s", r.Status, msg)
	}
	return nil
}

// noProtocolError says in one line why nothing can be sent and what to
// give instead, rather than the chooser's error chain.
func noProtocolError(wk agora.WellKnownInfo, candidates []agora.Candidate, err error) error {
	const instead = "give --protocol FILE|HASH (a document or hash to speak), --speaking HASH to find a target that speaks one, or --natural to send natural language"
	if len(candidates) == 0 {
		return errors.New("no protocol to send with: " + instead)
	}
	var refused []string
	for _, c := range candidates {
		if wk.Unsupported[c.Digest] {
			refused = append(refused, c.Digest.Hex())
		}
	}
	if len(refused) == len(candidates) {
		return fmt.Errorf("the target marks %s unsupported: %s", strings.Join(refused, ", "), instead)
	}
	// The LLM's verdict, without the chooser's prefix.
	detail := strings.TrimPrefix(err.Error(), agora.ErrNoProtocol.Error()+": ")
	return fmt.Errorf("no usable protocol among %s (%s): %s", plural.Of(len(candidates), "candidate"), detail, instead)
}

// lookupPrefix asks the registries, in order, for the one document a hex
// prefix (as listings show hashes) names; the first that knows it wins,
// and an ambiguous prefix is an error naming the candidates.
func lookupPrefix(ctx context.Context, regs []*agora.Registry, prefix string) (agora.Digest, error) {
	if len(prefix) < 8 || strings.Trim(strings.ToLower(prefix), "0123456789abcdef") != "" {
		return agora.Digest{}, errors.New("a hash is 40 hex or 28 Base64 characters, a prefix at least 8 hex digits")
	}
	err := errors.New("no registry given (--registry) to look the prefix up in")
	for _, r := range regs {
		p, lerr := r.Lookup(ctx, prefix)
		if lerr == nil {
			return agora.ParseDigest(p.Hex)
		}
		err = lerr
		var refused *agora.RegistryError
		if errors.As(lerr, &refused) && refused.Status == http.StatusConflict {
			break // ambiguous here: another registry would not make it less so
		}
	}
	return agora.Digest{}, err
}
