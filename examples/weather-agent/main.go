// Command weather-agent is a minimal Agora agent built on the agora
// module: it answers the Weather Protocol v1 with a routine and, when
// AGENT_LLM_BASE_URL names an OpenAI-compatible endpoint, negotiates new
// protocols with that model.
//
//	go run ./examples/weather-agent 127.0.0.1:8090   (the registry keeps 8080)
package main

import (
	"context"
	"encoding/json"
	"log"
	"net/http"
	"os"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/examples"
)

// forecast answers a Weather Protocol v1 query.
func forecast(_ context.Context, req agora.Request) (string, error) {
	var q struct{ Location, Date string }
	if err := json.Unmarshal([]byte(req.Body), &q); err != nil || q.Location == "" || q.Date == "" {
		return `{"error": "the body must be {\"location\": string, \"date\": \"YYYY-MM-DD\"}"}`, nil
	}
	return `{"temperature": 11, "precipitation": 12, "weatherCondition": "rainy"}`, nil
}

func main() {
	opts := agora.Options{Name: "weather-agent", Description: "Weather forecasts", Kinds: []string{"weather"}}
	if base := os.Getenv("AGENT_LLM_BASE_URL"); base != "" {
		opts.LLM = &agora.LLM{BaseURL: base, Model: os.Getenv("AGENT_LLM_MODEL"), APIKey: os.Getenv("AGENT_LLM_API_KEY")}
	}
	h, err := agora.NewHandler(opts)
	if err != nil {
		log.Fatal(err)
	}
	doc, err := examples.Protocols.ReadFile("protocols/weather-v1.md")
	if err != nil {
		log.Fatal(err)
	}
	d, err := h.HandleDocument(doc, agora.RoutineFunc(forecast))
	if err != nil {
		log.Fatal(err)
	}
	addr := "127.0.0.1:8090"
	if len(os.Args) > 1 {
		addr = os.Args[1]
	}
	log.Printf("weather-agent answers protocol %s on %s", d.Hex(), addr)
	log.Fatal(http.ListenAndServe(addr, h))
}
