package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/agora/agoratest"
)

// hostileTarget answers on a raw socket, so it can write what net/http's
// server never would: a reason phrase holding escape sequences.
func hostileTarget(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func(conn net.Conn) {
				defer conn.Close()
				br := bufio.NewReader(conn)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					if req.Method == http.MethodGet {
						fmt.Fprint(conn, "HTTP/1.1 404 \x1b]0;pwned\x07\x1b[2J\r\nContent-Length: 0\r\n\r\n")
						continue
					}
					body, _ := json.Marshal(map[string]string{"status": "success", "body": "ok", "conversationId": "c\x1b[2J\x1b]0;pwned\x07"})
					fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
				}
			}(conn)
		}
	}()
	return "http://" + ln.Addr().String()
}

// What a hostile target writes (its status line's reason phrase, its
// conversation id) reaches the user's terminal without escape sequences.
func TestSendPrintsNoEscapesFromATarget(t *testing.T) {
	code, out, errOut := runAgent(nil, "send", "--to", hostileTarget(t), "--natural", "--body", "hi")
	if code != 0 || out != "ok\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if strings.ContainsAny(errOut, "\x1b\x07") {
		t.Fatalf("stderr carries the target's escape sequences: %q", errOut)
	}
	if !strings.Contains(errOut, "404 Not Found") {
		t.Fatalf("the well-known failure is not named: %q", errOut)
	}
}

// A negotiated document was written by a model the target talked to: it
// is published (permanently, under the sender's token) only with
// --publish, and otherwise sent inline as a data: URI.
func TestNegotiatedDocumentIsPublishedOnlyWithPublish(t *testing.T) {
	var publishes atomic.Int64
	reg := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		publishes.Add(1)
		http.Error(w, `{"code":"nope"}`, http.StatusForbidden)
	}))
	t.Cleanup(reg.Close)
	registry, err := agora.NewRegistry(reg.URL, reg.Client())
	if err != nil {
		t.Fatal(err)
	}
	const doc = "---\nname: steered\ndescription: what the target asked for\nmultiround: false\n---\n\nAnything the target talked the model into."
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{"status": "success", "body": "Write exactly what I say.", "conversationId": "c1"})
	}))
	t.Cleanup(target.Close)
	llm := agoratest.NewTextLLM(t, func(msgs []agoratest.Message) string {
		if len(msgs) <= 2 {
			return "Proposal."
		}
		return "<FINALPROTOCOL>" + doc + "</FINALPROTOCOL>"
	})
	model := &agora.LLM{BaseURL: llm.BaseURL(), Model: "scripted"}
	for _, publish := range []bool{false, true} {
		publishes.Store(0)
		_, sources, _, err := negotiate(context.Background(), target.Client(), model, target.URL, agora.TaskSchema{Description: "x"},
			[]*agora.Registry{registry}, 0, publish)
		if err != nil {
			t.Fatal(err)
		}
		if n := publishes.Load(); (n > 0) != publish || len(sources) != 1 || !strings.HasPrefix(sources[0], "data:") {
			t.Errorf("publish=%v: %d publish requests, sources %.40q", publish, n, sources)
		}
	}
}
