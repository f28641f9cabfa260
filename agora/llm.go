package agora

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// Message is one message of a chat with a model: role "system", "user" or
// "assistant".
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Completer is a chat model: given the messages so far, it returns the
// next assistant message. LLM is the OpenAI-compatible one; the sender's
// negotiation and suitability checks take any Completer.
type Completer interface {
	Complete(ctx context.Context, msgs []Message) (string, error)
}

// LLM answers with an OpenAI-compatible chat completions endpoint
// ({BaseURL}/chat/completions, BaseURL usually ending in /v1). As a
// Routine it answers natural-language requests, negotiations and
// protocols it reads from their documents; as a Completer it serves the
// sender's negotiation.
type LLM struct {
	BaseURL     string
	Model       string
	APIKey      string
	Timeout     time.Duration // one completion; 0 means 60 s
	MaxResponse int           // bytes read of one answer; 0 means DefaultMaxLLMOutput (1 MiB)
	Client      *http.Client  // nil means one honouring the proxy environment
}

const (
	naturalLanguagePrompt = "You are an Agora agent. Answer the other agent's request briefly and precisely."
	protocolPrompt        = "You are an Agora agent. Answer the request strictly as the following protocol document prescribes, replying with the response body only.\n\n"
)

// Answer implements Routine: the system prompt follows from the request
// (negotiation, protocol document, or natural language), then the
// conversation's history, then the body.
func (l *LLM) Answer(ctx context.Context, req Request) (string, error) {
	system := naturalLanguagePrompt
	switch {
	case req.Negotiation:
		system = receiverNegotiationPrompt(req.Agent)
	case req.Document != nil:
		system = protocolPrompt + string(req.Document)
	}
	msgs := []Message{{Role: "system", Content: system}}
	for _, t := range req.History {
		msgs = append(msgs, Message{"user", t.Request}, Message{"assistant", t.Answer})
	}
	msgs = append(msgs, Message{"user", req.Body})
	return l.Complete(ctx, msgs)
}

// Complete implements Completer. Every way the endpoint can fail (no
// answer in time, a non-200 status, a body that is not a chat completion,
// no choices) is ErrLLMFailed; the detail, which names the endpoint, is
// kept as the error's cause for the log and never shown to a sender.
func (l *LLM) Complete(ctx context.Context, msgs []Message) (string, error) {
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
			Message Message `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(raw, &out); err != nil || len(out.Choices) == 0 {
		return "", failed(ErrLLMFailed, "the answer of POST %s is not a chat completion with a choice", RedactURL(r.URL.String()))
	}
	return out.Choices[0].Message.Content, nil
}
