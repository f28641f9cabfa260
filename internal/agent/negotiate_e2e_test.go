package agent

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/agora/agoratest"
)

const negotiatedDoc = `---
name: Forecast by place
description: One forecast for a place and a day.
multiround: false
---

The sender sends {"location": string, "date": "YYYY-MM-DD"}; the receiver
answers {"temperature": number}.`

// bobNegotiates plays Bob's model: two negotiation turns, then forecasts
// for the protocol it reads.
func bobNegotiates(msgs []agoratest.Message) string {
	switch system := msgs[0].Content; {
	case strings.Contains(system, "negotiating a protocol on behalf of a web service"):
		if len(msgs) <= 2 {
			return "I give forecasts: send location and date as JSON, I answer the temperature."
		}
		return "Agreed. We are done."
	case strings.Contains(system, "as the following protocol document prescribes"):
		return `{"temperature": 11}`
	}
	return "?"
}

// aliceNegotiates plays Alice's model: a proposal, then the final protocol.
func aliceNegotiates(msgs []agoratest.Message) string {
	if strings.HasPrefix(msgs[0].Content, "You are ProtocolCheckerGPT.") {
		return "It carries location and date. ADEQUATE"
	}
	if len(msgs) <= 2 {
		return `Proposal: {"location", "date"} in, {"temperature"} out.`
	}
	return "<FINALPROTOCOL>\n" + negotiatedDoc + "\n</FINALPROTOCOL>"
}

// Two of our agents negotiate end to end: "agent send --negotiate" (a
// process) with Bob (this test's agent), both on scripted models, with the
// real registry as a process. The agreed document ends in the registry and
// in Bob's /.wellknown, Bob answers it, and the next send uses it without
// negotiating again.
func TestNegotiationEndToEnd(t *testing.T) {
	registry := startRegistry(t)
	agentBin := buildBinary(t, "./cmd/agent")
	bobLLM := agoratest.NewTextLLM(t, bobNegotiates)
	aliceLLM := agoratest.NewTextLLM(t, aliceNegotiates)
	_, bob := startBob(t, Config{Name: "bob", Description: "forecasts", Registries: []string{registry},
		LLM: LLMConfig{BaseURL: bobLLM.BaseURL(), Model: "scripted"}, Negotiated: "list"})

	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.json"), filepath.Join(dir, "out.json")
	os.WriteFile(in, []byte(`{"type": "object", "properties": {"location": {"type": "string"}, "date": {"type": "string"}}}`), 0o600)
	os.WriteFile(out, []byte(`{"type": "object", "properties": {"temperature": {"type": "number"}}}`), 0o600)
	send := func() (string, string) {
		cmd := exec.Command(agentBin, "send", "--to", bob, "--registry", registry,
			"--task", "Get the weather at a place on a day", "--input-schema", in, "--output-schema", out,
			"--negotiate", "--publish", "--body", `{"location": "Paris", "date": "2025-01-01"}`)
		cmd.Env = append(os.Environ(), "AGENT_LLM_BASE_URL="+aliceLLM.BaseURL(), "AGENT_LLM_MODEL=scripted")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("agent send: %v\nstdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
		}
		return strings.TrimSpace(stdout.String()), stderr.String()
	}
	answer, log := send()
	if answer != `{"temperature": 11}` || !strings.Contains(log, "negotiated protocol") || !strings.Contains(log, "published to "+registry) {
		t.Fatalf("first send printed %q; stderr:\n%s", answer, log)
	}
	sums, _ := agora.Hash([]byte(negotiatedDoc))
	d := sums.SHA1

	// In the registry, byte for byte.
	got, err := registryClient(t, registry).Fetch(context.Background(), d)
	if err != nil || string(got) != negotiatedDoc {
		t.Fatalf("registry has %q, %v", got, err)
	}
	// In Bob's /.wellknown, with the registry's source Alice sent.
	wk, err := agora.FetchWellKnown(context.Background(), http.DefaultClient, bob)
	if err != nil || len(wk.Supported[d]) != 1 || !strings.HasPrefix(wk.Supported[d][0], registry) {
		t.Fatalf("Bob lists %v (%v)", wk.Supported, err)
	}
	// The next send judges the protocol Bob now lists adequate (the fourth
	// criterion, one question): no negotiation, and Bob's routine answers.
	negotiations, aliceCalls := len(bobLLM.Calls()), len(aliceLLM.Calls())
	answer, log = send()
	if answer != `{"temperature": 11}` || !strings.Contains(log, "judged it adequate") || strings.Contains(log, "negotiated protocol") {
		t.Fatalf("second send printed %q; stderr:\n%s", answer, log)
	}
	if len(aliceLLM.Calls()) != aliceCalls+1 || len(bobLLM.Calls()) != negotiations+1 {
		t.Fatalf("second send: alice's model called %d more times, bob's %d", len(aliceLLM.Calls())-aliceCalls, len(bobLLM.Calls())-negotiations)
	}
}

// Without an LLM on Alice's side, --negotiate says what is missing.
func TestNegotiateNeedsAnLLM(t *testing.T) {
	agentBin := buildBinary(t, "./cmd/agent")
	_, bob := startBob(t, Config{Name: "bob"})
	cmd := exec.Command(agentBin, "send", "--to", bob, "--task", "weather", "--negotiate", "--body", "{}")
	cmd.Env = append(os.Environ(), "AGENT_LLM_BASE_URL=")
	msg, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(msg), "--negotiate needs an LLM") {
		t.Fatalf("%v: %s", err, msg)
	}
}
