package agora

import (
	"context"
	"net/http"
	"testing"
)

func adoptedListed(h *Handler, d Digest) bool {
	_, ok := h.WellKnown().(map[string]any)[d.Hex()]
	return ok
}

// Only a client that negotiated here adopts a protocol, one per
// negotiation, and never under NegotiatedIgnore.
func TestNegotiatedProtocolAdoptionIsEarned(t *testing.T) {
	ctx := context.Background()
	docs := suitabilityCandidates(t)
	use := func(url string, c Candidate) Reply {
		hash := c.Digest.Hex()
		r, err := Send(ctx, http.DefaultClient, url, Outgoing{ProtocolHash: &hash, ProtocolSources: []string{DataURI(c.Document)}, Body: "{}"})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	negotiate := func(url string) {
		alice := newScriptedLLM(t, aliceScript)
		if _, err := (&Negotiator{LLM: alice.llm()}).Negotiate(ctx, url, weatherTask()); err != nil {
			t.Fatal(err)
		}
	}
	bobLLM := newScriptedLLM(t, func([]Message) string { return "ok" })

	bob, url := startBob(t, agentSetup{Options: Options{Name: "bob", LLM: bobLLM.llm()}})
	if r := use(url, docs[0]); r.Status != StatusSuccess || adoptedListed(bob, docs[0].Digest) {
		t.Fatalf("without a negotiation: %+v, listed %v", r, adoptedListed(bob, docs[0].Digest))
	}
	negotiate(url)
	use(url, docs[1])
	use(url, docs[2])
	if !adoptedListed(bob, docs[1].Digest) || adoptedListed(bob, docs[2].Digest) {
		t.Fatal("one negotiation must adopt exactly the first protocol used after it")
	}

	ignoring, url2 := startBob(t, agentSetup{Options: Options{Name: "bob", LLM: bobLLM.llm(), Negotiated: NegotiatedIgnore}})
	negotiate(url2)
	if r := use(url2, docs[1]); r.Status != StatusSuccess || adoptedListed(ignoring, docs[1].Digest) {
		t.Fatalf("ignore: %+v", r)
	}

	capped, url3 := startBob(t, agentSetup{Options: Options{Name: "bob", LLM: bobLLM.llm(), MaxNegotiated: 1}})
	negotiate(url3)
	use(url3, docs[0])
	negotiate(url3)
	use(url3, docs[1])
	if len(capped.Supported()) != 1 {
		t.Fatalf("MaxNegotiated 1 adopted %d", len(capped.Supported()))
	}
	if _, err := NewHandler(Options{Negotiated: "always"}); err == nil {
		t.Fatal("an unknown policy was accepted")
	}
}
