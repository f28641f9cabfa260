package agora

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestLLM(t *testing.T) {
	var got struct {
		Model    string
		Messages []Message
	}
	var auth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		auth = r.Header.Get("Authorization")
		json.NewDecoder(r.Body).Decode(&got)
		w.Write([]byte(`{"choices":[{"message":{"role":"assistant","content":"Rainy, 11 degrees"}}]}`))
	}))
	defer srv.Close()
	l := &LLM{BaseURL: srv.URL + "/v1", Model: "m", APIKey: "k"}
	out, err := l.Answer(context.Background(), Request{Body: "weather?", History: []Turn{{"hi", "hello"}}})
	if err != nil || out != "Rainy, 11 degrees" {
		t.Fatalf("got %q, %v", out, err)
	}
	if auth != "Bearer k" || got.Model != "m" || len(got.Messages) != 4 || got.Messages[3].Content != "weather?" {
		t.Fatalf("request: auth %q, %+v", auth, got)
	}
	var none *LLM
	if _, err := none.Answer(context.Background(), Request{}); !errors.Is(err, ErrNoLLM) {
		t.Fatalf("nil LLM: %v", err)
	}
}
