package main

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agora-registry/registry/agora/agoratest"
)

// registry serve --llm-base-url: the match's top candidates come back in
// the model's order, the key from REGISTRY_LLM_API_KEY sent with the
// request; the model is the scripted OpenAI-compatible server.
func TestServeMatchRerankedByTheModel(t *testing.T) {
	llm := agoratest.NewLLM(t, func(w http.ResponseWriter, r *http.Request, msgs []agoratest.Message) {
		if r.Header.Get("Authorization") != "Bearer k3y" {
			http.Error(w, "no key", http.StatusUnauthorized)
			return
		}
		agoratest.Reply(w, "[2, 1]")
	})
	t.Setenv("REGISTRY_LLM_API_KEY", "k3y")
	srv := startServer(t, "--data-dir", filepath.Join(t.TempDir(), "data"), "--no-examples", "--open-publish",
		"--llm-base-url", llm.BaseURL(), "--llm-model", "scripted", "--llm-rerank", "2")
	hexes := map[string]string{}
	for name, doc := range map[string]string{
		"title": "# Weather forecast\n\nAsk for it.\n",
		"body":  "# Sky log\n\nIt keeps the weather of each night.\n",
	} {
		status, _, body := call(t, "POST", srv.URL+"/api/v1/protocols", strings.NewReader(doc), "Content-Type", "text/markdown")
		var p struct{ Hex string }
		if status != http.StatusCreated || json.Unmarshal(body, &p) != nil {
			t.Fatalf("publish: %d %s", status, body)
		}
		hexes[p.Hex] = name
	}
	status, _, body := call(t, "POST", srv.URL+"/api/v1/match", strings.NewReader(`{"task": "weather forecast"}`), "Content-Type", "application/json")
	var res struct {
		RankedBy string
		Items    []struct {
			Hex     string
			Reasons []struct{ Kind string }
		}
	}
	if status != http.StatusOK || json.Unmarshal(body, &res) != nil || len(res.Items) != 2 {
		t.Fatalf("match: %d %s", status, body)
	}
	if res.RankedBy != "llm" || hexes[res.Items[0].Hex] != "body" || hexes[res.Items[1].Hex] != "title" {
		t.Fatalf("match: %s", body)
	}
	if n := len(llm.Calls()); n != 1 {
		t.Fatalf("%d completions", n)
	}
}
