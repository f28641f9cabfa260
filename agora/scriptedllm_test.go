package agora

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// scriptedLLM is an OpenAI-compatible chat completions server run by a
// script: no model, no network beyond loopback. The script sees the
// messages of each request and returns the assistant's text; the server
// records every request.
type scriptedLLM struct {
	*httptest.Server
	mu    sync.Mutex
	calls [][]Message
}

// chatReply writes a chat completion answering content.
func chatReply(w http.ResponseWriter, content string) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-test", "object": "chat.completion",
		"choices": []map[string]any{{"index": 0, "finish_reason": "stop",
			"message": map[string]string{"role": "assistant", "content": content}}},
	})
}

func newScriptedLLM(t testing.TB, script func(msgs []Message) string) *scriptedLLM {
	return newRawLLM(t, func(w http.ResponseWriter, _ *http.Request, msgs []Message) { chatReply(w, script(msgs)) })
}

// newRawLLM lets the script write the HTTP answer itself (errors).
func newRawLLM(t testing.TB, script func(w http.ResponseWriter, r *http.Request, msgs []Message)) *scriptedLLM {
	s := &scriptedLLM{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
		s.mu.Lock()
		s.calls = append(s.calls, req.Messages)
		s.mu.Unlock()
		script(w, r, req.Messages)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *scriptedLLM) llm() *LLM { return &LLM{BaseURL: s.URL + "/v1", Model: "scripted"} }

func (s *scriptedLLM) Calls() [][]Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]Message(nil), s.calls...)
}

// lastUser is the last user message of a request.
func lastUser(msgs []Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" {
			return msgs[i].Content
		}
	}
	return ""
}
