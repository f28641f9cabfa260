package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/agora-registry/registry/agora"
)

// TestWeatherAgentBuildsAndAnswers builds the example as a user would,
// runs it, and sends it the spec's weather query.
func TestWeatherAgentBuildsAndAnswers(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "weather-agent")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	var logs bytes.Buffer
	cmd := exec.Command(bin, addr)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, &logs, &logs // its cache goes in dir
	cmd.Env = []string{"PATH=/usr/bin:/bin", "AGENT_LLM_BASE_URL="}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	target := "http://" + addr
	var wk agora.WellKnownInfo
	for {
		if wk, err = agora.FetchWellKnown(ctx, http.DefaultClient, target); err == nil || ctx.Err() != nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("the agent did not serve its well-known list: %v\n%s", err, logs.String())
	}
	d, _ := agora.ParseDigest("19c14acadb5e31000f7864d9a2cc1e918bd20e0b") // Weather Protocol v1
	if _, ok := wk.Supported[d]; !ok {
		t.Fatalf("Weather Protocol v1 not listed: %v", wk.Supported)
	}
	hash := d.Base64()
	reply, err := agora.Send(ctx, http.DefaultClient, target, agora.Outgoing{ProtocolHash: &hash, ProtocolSources: []string{},
		Body: `{"location": "London, UK", "date": "2024-09-27"}`})
	if err != nil || reply.Status != agora.StatusSuccess || reply.Body != `{"temperature": 11, "precipitation": 12, "weatherCondition": "rainy"}` {
		t.Fatalf("reply %+v, %v\n%s", reply, err, logs.String())
	}
	// Negotiation without an LLM: a clear failure with a conversation id.
	neg := agora.Negotiation
	reply, err = agora.Send(ctx, http.DefaultClient, target, agora.Outgoing{ProtocolHash: &neg, Body: "Hello", Multiround: true})
	if err != nil || reply.Status != agora.StatusFailure || reply.ConversationID == "" {
		t.Fatalf("negotiation without an LLM: %+v, %v", reply, err)
	}
}
