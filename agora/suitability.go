package agora

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// Suitability is a model's judgement of a protocol for a task, in the
// SDK's categories (agora/common/core.py Suitability).
type Suitability string

// The SDK's suitability values.
const (
	Adequate           Suitability = "adequate"
	ProbablyAdequate   Suitability = "probably_adequate"
	ProbablyInadequate Suitability = "probably_inadequate"
	Inadequate         Suitability = "inadequate"
	SuitabilityUnknown Suitability = "unknown"
)

// DefaultMaxSuitabilityChecks bounds how many candidates ChooseWithLLM
// asks the model about (one completion each).
const DefaultMaxSuitabilityChecks = 5

// suitabilityPrompt is the SDK's ProtocolPicker prompt with its four
// categories in place of YES/NO.
const suitabilityPrompt = "You are ProtocolCheckerGPT. Your task is to look at the provided protocol and determine if it is expressive " +
	"enough to fullfill the required task (of which you'll receive a JSON schema). A protocol is sufficiently expressive if you could write code that, given the input data, sends " +
	"the query according to the protocol's specification and parses the reply. Think about it and at the end of the reply write exactly one of " +
	"ADEQUATE, PROBABLY_ADEQUATE, PROBABLY_INADEQUATE or INADEQUATE."

// CheckSuitability asks llm whether doc can carry task. The verdict is the
// last category word of the reply (the SDK's YES and NO read as ADEQUATE
// and INADEQUATE); a reply without one is SuitabilityUnknown.
func CheckSuitability(ctx context.Context, llm Completer, doc []byte, task TaskSchema) (Suitability, error) {
	reply, err := llm.Complete(ctx, []Message{
		{Role: "system", Content: suitabilityPrompt},
		{Role: "user", Content: "The protocol is the following:\n\n" + string(doc) + "\n\nThe task is the following:\n\n" + task.String()},
	})
	if err != nil {
		return SuitabilityUnknown, err
	}
	return readVerdict(reply), nil
}

func readVerdict(reply string) Suitability {
	words := strings.FieldsFunc(strings.ToUpper(reply), func(r rune) bool {
		return !(r >= 'A' && r <= 'Z' || r == '_')
	})
	for i := len(words) - 1; i >= 0; i-- {
		switch words[i] {
		case "ADEQUATE", "YES":
			return Adequate
		case "PROBABLY_ADEQUATE":
			return ProbablyAdequate
		case "PROBABLY_INADEQUATE":
			return ProbablyInadequate
		case "INADEQUATE", "NO":
			return Inadequate
		}
	}
	return SuitabilityUnknown
}

// Assessment is the model's verdict on one candidate.
type Assessment struct {
	Digest      Digest
	Suitability Suitability
}

// JudgeCandidates applies the spec's fourth criterion, for when
// ChooseProtocol finds no candidate listed by the target, implemented or
// fitting by metadata: the model judges the candidates that have a
// document, in order, at most maxChecks of them (0 means
// DefaultMaxSuitabilityChecks); the first judged adequate wins, else the
// first judged probably adequate. Hashes the target marks unsupported are
// skipped. It returns ErrNoProtocol, with the verdicts, when none is
// suitable; the caller may then negotiate.
func JudgeCandidates(ctx context.Context, llm Completer, wk WellKnownInfo, candidates []Candidate, task TaskSchema, maxChecks int) (Choice, []Assessment, error) {
	if maxChecks <= 0 {
		maxChecks = DefaultMaxSuitabilityChecks
	}
	var verdicts []Assessment
	var probably *Candidate
	for i := range candidates {
		c := &candidates[i]
		if len(verdicts) >= maxChecks {
			break
		}
		if c.Document == nil || wk.Unsupported[c.Digest] {
			continue
		}
		s, err := CheckSuitability(ctx, llm, c.Document, task)
		if err != nil {
			return Choice{}, verdicts, err
		}
		verdicts = append(verdicts, Assessment{Digest: c.Digest, Suitability: s})
		switch {
		case s == Adequate:
			return Choice{Candidate: *c, Reason: "the LLM judged it adequate", Criterion: 4}, verdicts, nil
		case s == ProbablyAdequate && probably == nil:
			probably = c
		}
	}
	if probably != nil {
		return Choice{Candidate: *probably, Reason: "the LLM judged it probably adequate", Criterion: 4}, verdicts, nil
	}
	return Choice{}, verdicts, fmt.Errorf("%w: the LLM judged none of %d candidates adequate", ErrNoProtocol, len(verdicts))
}

// RegistryCandidates searches reg for task and returns up to limit
// documents, fetched and verified, as candidates we do not implement (for
// ChooseWithLLM's fourth criterion).
func RegistryCandidates(ctx context.Context, reg *Registry, task string, limit int) ([]Candidate, error) {
	if limit <= 0 {
		limit = DefaultMaxSuitabilityChecks
	}
	page, err := reg.Search(ctx, Query{Text: task, Limit: limit})
	if err != nil {
		return nil, err
	}
	return fetchCandidates(ctx, reg, page.Items, limit)
}

// fetchCandidates fetches and verifies up to limit of ps, in order, as
// candidates; a listed hash that does not parse is skipped, a failed fetch
// ends the list with the candidates so far.
func fetchCandidates(ctx context.Context, reg *Registry, ps []Protocol, limit int) ([]Candidate, error) {
	var out []Candidate
	for _, p := range ps {
		if len(out) == limit {
			break
		}
		d, err := ParseDigest(p.Hex)
		if err != nil {
			continue
		}
		doc, err := reg.Fetch(ctx, d)
		if err != nil {
			return out, err
		}
		out = append(out, Candidate{Digest: d, Document: doc, Title: p.Title, Description: p.Description, Tags: p.Tags})
	}
	return out, nil
}

// ListedCandidates tries to obtain, through r (verified, not cached), the
// documents of the first limit protocols the target lists, in hex order,
// for JudgeCandidates; those that cannot be obtained are skipped. Only
// limit are tried, so a target listing thousands of unobtainable hashes
// cannot turn the sender into a fetcher of their sources.
func ListedCandidates(ctx context.Context, r *Resolver, wk WellKnownInfo, limit int) []Candidate {
	if limit <= 0 {
		limit = DefaultMaxSuitabilityChecks
	}
	hashes := make([]Digest, 0, len(wk.Supported))
	for d := range wk.Supported {
		hashes = append(hashes, d)
	}
	sort.Slice(hashes, func(i, j int) bool { return hashes[i].Hex() < hashes[j].Hex() })
	var out []Candidate
	for i, d := range hashes {
		if i == limit {
			break
		}
		doc, err := r.ResolveTransient(ctx, d, wk.Supported[d])
		if err != nil {
			continue
		}
		c := Candidate{Digest: d, Document: doc.Document}
		if m, err := ParseProtocolMeta(doc.Document); err == nil {
			c.Title, c.Description = m.Name, m.Description
		}
		out = append(out, c)
	}
	return out
}
