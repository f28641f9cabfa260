package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/agent"
	"github.com/agora-registry/registry/internal/protocol"
)

func send(args []string) error {
	fs := flag.NewFlagSet("send", flag.ContinueOnError)
	to := fs.String("to", "", "the receiving agent's URL (required)")
	body := fs.String("body", "", "the request body (or --body-file; - reads stdin)")
	bodyFile := fs.String("body-file", "", "read the body from this file (- for stdin)")
	task := fs.String("task", "", "words describing the task, matched against protocol metadata")
	publish := fs.Bool("publish", false, "publish the chosen document to the first registry if it is not there yet")
	natural := fs.Bool("natural", false, "send a natural-language request (protocolHash null) when no protocol fits")
	multiround := fs.Bool("multiround", false, "open a multi-round conversation")
	conversation := fs.String("conversation", "", "continue this conversation instead of starting a transaction")
	end := fs.String("end", "", "end this conversation")
	timeout := fs.Duration("timeout", 2*time.Minute, "give up after this long")
	negotiateFlag := fs.Bool("negotiate", false, "when no protocol fits, negotiate one with the target's LLM (needs an LLM: --llm-base-url or AGENT_LLM_BASE_URL), publish it, then send")
	inputSchema := fs.String("input-schema", "", "JSON Schema file of the task's input, for the LLM")
	outputSchema := fs.String("output-schema", "", "JSON Schema file of the task's output, for the LLM")
	llmBaseURL := fs.String("llm-base-url", "", "OpenAI-compatible endpoint for --negotiate and the suitability check (env AGENT_LLM_BASE_URL)")
	llmModel := fs.String("llm-model", "", "model name (env AGENT_LLM_MODEL)")
	maxRounds := fs.Int("max-rounds", agora.DefaultNegotiationRounds, "messages the LLM may write in a negotiation")
	maxChecks := fs.Int("max-checks", agora.DefaultMaxSuitabilityChecks, "candidates the LLM judges before negotiating")
	hashSpelling := fs.String("hash-spelling", "", "write protocolHash as hex or base64 (default: as the target lists its hashes, else base64, the SDK's)")
	var protocols, registries listFlag
	fs.Var(&protocols, "protocol", "a protocol we implement: a document file or a hash, repeatable, in order of preference")
	fs.Var(&registries, "registry", "registry base URL, repeatable (env AGENT_REGISTRIES)")
	if err := fs.Parse(args); err != nil {
		return exitCode(2)
	}
	if *to == "" {
		return errors.New("--to is required")
	}
	spelling, err := agora.ParseSpelling(*hashSpelling)
	if err != nil {
		return err
	}
	if len(registries) == 0 {
		registries = splitEnvList(os.Getenv("AGENT_REGISTRIES"))
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	client := &http.Client{Timeout: *timeout}

	if *end != "" {
		reply, err := agora.End(ctx, client, *to, *end)
		return printReply(reply, err)
	}
	text, err := readBody(*body, *bodyFile)
	if err != nil {
		return err
	}
	if *conversation != "" {
		reply, err := agora.Continue(ctx, client, *to, *conversation, text)
		return printReply(reply, err)
	}

	regs, err := registryClients(registries)
	if err != nil {
		return err
	}
	candidates, err := loadCandidates(ctx, protocols, regs)
	if err != nil {
		return err
	}
	tx := agora.Outgoing{Body: text, Multiround: *multiround}
	wk, wkErr := agora.FetchWellKnown(ctx, client, *to)
	if wkErr != nil {
		fmt.Fprintln(os.Stderr, "note:", wkErr, "- choosing without it")
	}
	choice, err := agora.ChooseProtocol(wk, candidates, *task)
	var sources []string
	if llm := senderLLM(*llmBaseURL, *llmModel); llm != nil && (err != nil || choice.Criterion == 0) {
		ts, terr := taskSchema(*task, *inputSchema, *outputSchema)
		if terr != nil {
			return terr
		}
		if choice, err = chooseByLLM(ctx, llm, wk, candidates, registries, regs, ts, *maxChecks); err != nil && *negotiateFlag {
			var multi bool
			if choice.Candidate, sources, multi, err = negotiate(ctx, client, llm, *to, ts, regs, *maxRounds); err != nil {
				return err
			}
			choice.Reason, tx.Multiround = "negotiated with the target", tx.Multiround || multi
		}
	} else if *negotiateFlag && (err != nil || choice.Criterion == 0) {
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
		fmt.Fprintf(os.Stderr, "protocol %s (%s): %s\n", hash, choice.Candidate.Title, choice.Reason)
	case *natural:
		fmt.Fprintln(os.Stderr, "no protocol chosen: sending natural language")
	default:
		return fmt.Errorf("%w (give --protocol, or --natural for a natural-language request)", err)
	}
	reply, err := agora.Send(ctx, client, *to, tx)
	return printReply(reply, err)
}

func readBody(body, file string) (string, error) {
	switch {
	case file == "-":
		b, err := io.ReadAll(io.LimitReader(os.Stdin, agent.DefaultMaxRequestBytes+1))
		return string(b), err
	case file != "":
		b, err := os.ReadFile(file)
		return string(b), err
	}
	return body, nil
}

func registryClients(bases []string) ([]*agora.Registry, error) {
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
	token := os.Getenv("AGENT_REGISTRY_TOKEN")
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

// loadCandidates reads --protocol arguments: document files, or hashes whose
// titles are looked up in the registries.
func loadCandidates(ctx context.Context, args []string, regs []*agora.Registry) ([]agora.Candidate, error) {
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
			return nil, fmt.Errorf("--protocol %q is neither a readable file nor a hash", arg)
		}
		c := agora.Candidate{Digest: d, Implemented: true}
		for _, reg := range regs {
			if res, err := reg.Resolve(ctx, []agora.Digest{d}); err == nil && len(res) == 1 && res[0].Found {
				c.Title = res[0].Title
				break
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// printReply prints the answer's body on stdout; anything but success also
// goes to stderr and exits 1.
func printReply(r agora.Reply, err error) error {
	if err != nil {
		return err
	}
	fmt.Println(r.Body)
	if r.ConversationID != "" {
		fmt.Fprintln(os.Stderr, "conversationId:", r.ConversationID)
	}
	if r.Status != agora.StatusSuccess {
		msg, _ := json.Marshal(r.Error)
		fmt.Fprintf(os.Stderr, "status: %s, error: %s\n", r.Status, msg)
		return exitCode(1)
	}
	return nil
}
