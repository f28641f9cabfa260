package agora

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// agreedDoc is the protocol the scripted negotiators agree on.
const agreedDoc = `---
name: Forecast by place
description: One forecast for a place and a day.
multiround: false
---

The sender sends {"location": string, "date": "YYYY-MM-DD"}; the receiver
answers {"temperature": number}.`

// bobScript plays the receiver's model: it answers a negotiation in two
// turns and a protocol's request with a forecast.
func bobScript(msgs []Message) string {
	system := msgs[0].Content
	switch {
	case strings.Contains(system, "negotiating a protocol on behalf of a web service"):
		if len(msgs) <= 2 {
			return "I can give forecasts. Send location and date as JSON; I answer the temperature."
		}
		return "Agreed. We are done."
	case strings.HasPrefix(system, protocolPrompt):
		return `{"temperature": 11}`
	}
	return "?"
}

// aliceScript plays the sender's model: one proposal, then the final
// protocol.
func aliceScript(msgs []Message) string {
	assistant := 0
	for _, m := range msgs {
		if m.Role == "assistant" {
			assistant++
		}
	}
	if assistant == 0 {
		return `I need the temperature at a location on a date. Proposal: {"location", "date"} in, {"temperature"} out.`
	}
	return "Great, here it is.\n<FinalProtocol>\n" + agreedDoc + "\n</finalprotocol>\nThanks!"
}

func weatherTask() TaskSchema {
	return TaskSchema{Description: "Get the weather at a place on a day",
		InputSchema:  json.RawMessage(`{"type": "object", "properties": {"location": {"type": "string"}, "date": {"type": "string"}}}`),
		OutputSchema: json.RawMessage(`{"type": "object", "properties": {"temperature": {"type": "number"}}}`)}
}

// wire records the requests an agent receives.
type wire struct {
	mu   sync.Mutex
	reqs []string // "METHOD path body"
}

func (w *wire) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.mu.Lock()
		w.reqs = append(w.reqs, r.Method+" "+r.URL.Path+" "+string(body))
		w.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(rw, r)
	})
}

func TestNegotiationBetweenTwoAgents(t *testing.T) {
	bobLLM := newScriptedLLM(t, bobScript)
	bob, _ := startBob(t, agentSetup{Options: Options{Name: "bob", Description: "forecasts", Kinds: []string{"weather"}, LLM: bobLLM.llm()}})
	doc, _ := weatherDoc(t)
	if _, err := bob.HandleDocument(doc, weather); err != nil {
		t.Fatal(err)
	}
	var seen wire
	srv := httptest.NewServer(seen.wrap(bob))
	t.Cleanup(srv.Close)

	aliceLLM := newScriptedLLM(t, aliceScript)
	n := &Negotiator{LLM: aliceLLM.llm()}
	got, err := n.Negotiate(context.Background(), srv.URL, weatherTask())
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Document) != agreedDoc || got.Rounds != 2 || got.Meta != (ProtocolMeta{Name: "Forecast by place", Description: "One forecast for a place and a day."}) {
		t.Fatalf("agreed %+v", got)
	}
	if sums, _ := Hash([]byte(agreedDoc)); got.Digest != sums.SHA1 {
		t.Fatal("digest is not the document's SHA-1")
	}
	// The wire: one opening with the SDK's fields, no follow-up (the final
	// message goes to no one), and the conversation ended.
	if len(seen.reqs) != 2 || !strings.HasPrefix(seen.reqs[0], "POST / ") || !strings.HasPrefix(seen.reqs[1], "DELETE /conversations/") {
		t.Fatalf("wire: %q", seen.reqs)
	}
	var opening map[string]any
	json.Unmarshal([]byte(strings.TrimPrefix(seen.reqs[0], "POST / ")), &opening)
	if opening["protocolHash"] != "negotiation" || opening["multiround"] != true || opening["protocolSources"] != nil {
		t.Fatalf("opening %v", opening)
	}
	// Alice's model heard the SDK's opening; Bob's got the agent's protocols.
	if calls := aliceLLM.Calls(); calls[0][1].Content != NegotiationOpening {
		t.Fatalf("alice's first user message %q", calls[0][1].Content)
	}
	bobSystem := bobLLM.Calls()[0][0].Content
	if !strings.Contains(bobSystem, `"bob": forecasts`) || !strings.Contains(bobSystem, "Weather Protocol v1: Query weather forecasts") {
		t.Fatalf("bob's negotiation prompt lacks the agent's description:\n%s", bobSystem)
	}

	// First use: answered through the LLM, then listed and cached.
	hash := got.Digest.Base64()
	if _, listed := bob.WellKnown().(map[string]any)[got.Digest.Hex()]; listed {
		t.Fatal("listed before first use")
	}
	reply, err := Send(context.Background(), http.DefaultClient, srv.URL, Outgoing{ProtocolHash: &hash,
		ProtocolSources: []string{DataURI(got.Document)}, Body: `{"location": "Paris", "date": "2025-01-01"}`})
	if err != nil || reply.Status != StatusSuccess || reply.Body != `{"temperature": 11}` {
		t.Fatalf("first use: %+v %v", reply, err)
	}
	if sources, listed := bob.WellKnown().(map[string]any)[got.Digest.Hex()]; !listed || sources.([]string)[0] != DataURI(got.Document) {
		t.Fatalf("not listed after first use: %v", bob.WellKnown())
	}
	// Later uses need no source: the document is cached.
	reply, _ = Send(context.Background(), http.DefaultClient, srv.URL, Outgoing{ProtocolHash: &hash, ProtocolSources: []string{}, Body: `{}`})
	if reply.Status != StatusSuccess {
		t.Fatalf("second use: %+v", reply)
	}
}
