package agora

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestReadVerdict(t *testing.T) {
	for reply, want := range map[string]Suitability{
		"Looks fine.\nADEQUATE":                       Adequate,
		"It lacks the date. inadequate":               Inadequate,
		"Hmm: PROBABLY_INADEQUATE.":                   ProbablyInadequate,
		"**PROBABLY_ADEQUATE**":                       ProbablyAdequate,
		"ADEQUATE at first sight, but no: INADEQUATE": Inadequate,
		"YES":            Adequate,
		"I cannot tell.": SuitabilityUnknown,
		"the word ADEQUATELY is not a verdict, nor is X": SuitabilityUnknown,
	} {
		if got := readVerdict(reply); got != want {
			t.Errorf("readVerdict(%q) = %s, want %s", reply, got, want)
		}
	}
}

func suitabilityCandidates(t *testing.T) []Candidate {
	var out []Candidate
	for _, name := range []string{"alpha", "beta", "gamma"} {
		doc := []byte("---\nname: " + name + "\n---\n" + name)
		sums, _ := Hash(doc)
		out = append(out, Candidate{Digest: sums.SHA1, Document: doc, Title: name})
	}
	return out
}

// The fourth criterion asks the model about candidates in order, at most
// maxChecks, and takes the first adequate one, else the first probably
// adequate.
func TestJudgeCandidates(t *testing.T) {
	verdicts := map[string]string{"alpha": "PROBABLY_ADEQUATE", "beta": "INADEQUATE", "gamma": "ADEQUATE"}
	llm := newScriptedLLM(t, func(msgs []Message) string {
		for name, v := range verdicts {
			if strings.Contains(msgs[1].Content, "name: "+name+"\n") {
				return "Thinking... " + v
			}
		}
		return "?"
	})
	ctx, wk, cs := context.Background(), newWellKnownInfo(), suitabilityCandidates(t)
	choice, got, err := JudgeCandidates(ctx, llm.llm(), wk, cs, weatherTask(), 0)
	if err != nil || choice.Candidate.Title != "gamma" || choice.Criterion != 4 || len(got) != 3 {
		t.Fatalf("got %+v %v %v", choice, got, err)
	}
	if !strings.HasPrefix(llm.Calls()[0][0].Content, "You are ProtocolCheckerGPT.") {
		t.Fatal("not the checker prompt")
	}
	choice, got, err = JudgeCandidates(ctx, llm.llm(), wk, cs, weatherTask(), 2)
	if err != nil || choice.Candidate.Title != "alpha" || len(got) != 2 || len(llm.Calls()) != 5 {
		t.Fatalf("bounded to 2: %+v %v %v, %d calls", choice, got, err, len(llm.Calls()))
	}
	verdicts["alpha"] = "NO"
	if _, _, err = JudgeCandidates(ctx, llm.llm(), wk, cs, weatherTask(), 2); !errors.Is(err, ErrNoProtocol) {
		t.Fatalf("none adequate: %v", err)
	}
	// A hash the target refuses is never asked about.
	before := len(llm.Calls())
	wk.Unsupported[cs[0].Digest] = true
	if _, got, _ = JudgeCandidates(ctx, llm.llm(), wk, cs[:1], weatherTask(), 0); len(got) != 0 || len(llm.Calls()) != before {
		t.Fatalf("asked about an unsupported hash: %v", got)
	}
}
