// Package agoratest holds test helpers for agents built with agora: a
// scripted OpenAI-compatible chat completions server, so negotiation,
// natural-language and LLM-routine paths can be tested with no model and
// no network beyond loopback.
package agoratest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Message is one chat message as the server receives it.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// LLM is a running scripted server. Point agora.LLM.BaseURL (or an
// agent's llm.baseURL) at BaseURL.
type LLM struct {
	*httptest.Server
	mu    sync.Mutex
	calls [][]Message
}

// Script answers one chat completion request; it writes the whole HTTP
// answer, so it can also fail in any way a real endpoint does.
type Script func(w http.ResponseWriter, r *http.Request, msgs []Message)

// NewLLM starts a server answering POST /v1/chat/completions with script;
// it is closed when the test ends.
func NewLLM(t testing.TB, script Script) *LLM {
	l := &LLM{}
	l.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		var req struct {
			Messages []Message `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		l.mu.Lock()
		l.calls = append(l.calls, req.Messages)
		l.mu.Unlock()
		script(w, r, req.Messages)
	}))
	t.Cleanup(l.Close)
	return l
}

// NewTextLLM starts a server whose script only chooses the assistant's
// text.
func NewTextLLM(t testing.TB, text func(msgs []Message) string) *LLM {
	return NewLLM(t, func(w http.ResponseWriter, _ *http.Request, msgs []Message) { Reply(w, text(msgs)) })
}

// Reply writes a chat completion whose one choice says content.
func Reply(w http.ResponseWriter, content string) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-test", "object": "chat.completion",
		"choices": []map[string]any{{"index": 0, "finish_reason": "stop",
			"message": map[string]string{"role": "assistant", "content": content}}},
	})
}

// BaseURL is the OpenAI-style base URL (ending in /v1).
func (l *LLM) BaseURL() string { return l.URL + "/v1" }

// Calls returns the messages of every request so far, in order.
func (l *LLM) Calls() [][]Message {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([][]Message(nil), l.calls...)
}

// LastUser is the content of the last user message of msgs.
func LastUser(msgs []Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" {
			return msgs[i].Content
		}
	}
	return ""
}
