package agora

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// LLM answers with an OpenAI-compatible chat completions endpoint
// ({BaseURL}/chat/completions, BaseURL usually ending in /v1).
type LLM struct {
	BaseURL     string
	Model       string
	APIKey      string
	Timeout     time.Duration // 0 means 60 s
	MaxResponse int           // 0 means DefaultMaxLLMOutput (1 MiB)
	Client      *http.Client
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

const (
	naturalLanguagePrompt = "You are an Agora agent. Answer the other agent's request briefly and precisely."
	negotiationPrompt     = "You are an Agora agent negotiating a protocol with another agent. Propose or refine a protocol document (Markdown with name/description front matter) or accept theirs."
	protocolPrompt        = "You are an Agora agent. Answer the request strictly as the following protocol document prescribes, replying with the response body only.\n\n"
)

// Answer implements Routine.
func (l *LLM) Answer(ctx context.Context, req Request) (string, error) {
	if l == nil || l.BaseURL == "" {
		return "", ErrNoLLM
	}
	timeout := l.Timeout
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	maxResp := l.MaxResponse
	if maxResp <= 0 {
		maxResp = DefaultMaxLLMOutput
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	system := naturalLanguagePrompt
	switch {
	case req.Negotiation:
		system = negotiationPrompt
	case req.Document != nil:
		system = protocolPrompt + string(req.Document)
	}
	msgs := []chatMessage{{Role: "system", Content: system}}
	for _, t := range req.History {
		msgs = append(msgs, chatMessage{"user", t.Request}, chatMessage{"assistant", t.Answer})
	}
	msgs = append(msgs, chatMessage{"user", req.Body})
	payload, _ := json.Marshal(map[string]any{"model": l.Model, "messages": msgs})

	r, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(l.BaseURL, "/")+"/chat/completions", bytes.NewReader(payload))
	if err != nil {
		return "", failed(ErrLLMFailed, "the LLM base URL %s is malformed", RedactURL(l.BaseURL))
	}
	r.Header.Set("Content-Type", "application/json")
	if l.APIKey != "" {
		r.Header.Set("Authorization", "Bearer "+l.APIKey)
	}
	client := l.Client
	if client == nil {
		client = &http.Client{Transport: &http.Transport{Proxy: http.ProxyFromEnvironment}}
	}
	resp, err := client.Do(r)
	if err != nil {
		return "", failed(ErrLLMFailed, "POST %s: %v", RedactURL(r.URL.String()), RedactError(err))
	}
	defer resp.Body.Close()
	raw, err := readLimited(resp.Body, maxResp)
	if err != nil {
		return "", failed(ErrLLMFailed, "reading the LLM's answer: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		return "", failed(ErrLLMFailed, "POST %s answered %s", RedactURL(r.URL.String()), resp.Status)
	}
	var out struct {
		Choices []struct {
			Message chatMessage `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(raw, &out); err != nil || len(out.Choices) == 0 {
		return "", failed(ErrLLMFailed, "the answer of POST %s is not a chat completion", RedactURL(r.URL.String()))
	}
	return out.Choices[0].Message.Content, nil
}
