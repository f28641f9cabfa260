package agora

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Every way the receiver's model can fail gives a clean Agora answer: a
// failure with code llm_failed, a body, the conversation's id, and nothing
// about the model's address.
func TestNegotiationLLMErrors(t *testing.T) {
	modes := map[string]func(w http.ResponseWriter, r *http.Request){
		"timeout": func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		},
		"500":            func(w http.ResponseWriter, r *http.Request) { http.Error(w, "model exploded at 10.0.0.7", 500) },
		"malformed JSON": func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"choices": [`)) },
		"empty choices":  func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"choices": []}`)) },
		"not an object":  func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`"hello"`)) },
	}
	for name, fail := range modes {
		t.Run(name, func(t *testing.T) {
			// Calls 1 (an opening) and 3 (a follow-up) fail; 2 succeeds.
			var n atomic.Int32
			llm := newRawLLM(t, func(w http.ResponseWriter, r *http.Request, msgs []Message) {
				if n.Add(1) == 2 {
					chatReply(w, "hello")
					return
				}
				fail(w, r)
			})
			model := llm.llm()
			model.Timeout = 300 * time.Millisecond
			_, url := startBob(t, agentSetup{Options: Options{Name: "bob", LLM: model}})
			open := tx(Negotiation, nil, "hi")
			open = append(open[:len(open)-1], []byte(`,"multiround":true}`)...)
			check := func(a Answer, when string) {
				t.Helper()
				if a.Status != StatusFailure || a.Code != "llm_failed" || a.Body == "" || a.ConversationID == "" {
					t.Fatalf("%s: %+v", when, a)
				}
				if host := strings.TrimPrefix(llm.URL, "http://"); strings.Contains(a.Body+a.Error, host) || strings.Contains(a.Body, "10.0.0.7") {
					t.Fatalf("%s: the answer leaks the model's address: %+v", when, a)
				}
			}
			check(call(t, "POST", url+"/", open), "opening")
			ok := call(t, "POST", url+"/", open)
			if ok.Status != StatusSuccess || ok.Body != "hello" {
				t.Fatalf("second opening: %+v", ok)
			}
			follow := call(t, "POST", url+"/conversations/"+ok.ConversationID, []byte(`{"body": "and?"}`))
			check(follow, "follow-up")
			if follow.ConversationID != ok.ConversationID {
				t.Fatalf("follow-up answered for %q", follow.ConversationID)
			}
		})
	}
}

func TestNegotiationWithoutLLMIsRefusedClearly(t *testing.T) {
	_, url := startBob(t, agentSetup{Options: Options{Name: "bob"}})
	alice := newScriptedLLM(t, aliceScript)
	_, err := (&Negotiator{LLM: alice.llm()}).Negotiate(context.Background(), url, weatherTask())
	if !errors.Is(err, ErrNegotiationRefused) || !strings.Contains(err.Error(), "no LLM configured") {
		t.Fatalf("got %v", err)
	}
}

func TestNegotiationThatDoesNotConverge(t *testing.T) {
	bobLLM := newScriptedLLM(t, func([]Message) string { return "Tell me more." })
	bob, url := startBob(t, agentSetup{Options: Options{Name: "bob", LLM: bobLLM.llm()}})
	alice := newScriptedLLM(t, func([]Message) string { return "What about XML?" })
	_, err := (&Negotiator{LLM: alice.llm(), MaxRounds: 4}).Negotiate(context.Background(), url, weatherTask())
	if !errors.Is(err, ErrNotConverged) || !strings.Contains(err.Error(), "within 4 rounds") {
		t.Fatalf("got %v", err)
	}
	if len(alice.Calls()) != 4 || len(bobLLM.Calls()) != 4 {
		t.Fatalf("rounds: alice %d, bob %d", len(alice.Calls()), len(bobLLM.Calls()))
	}
	if bob.convs.Len() != 0 {
		t.Fatal("the conversation was not ended")
	}
	// The transcript bound holds too.
	big := newScriptedLLM(t, func([]Message) string { return strings.Repeat("x", 40<<10) })
	_, err = (&Negotiator{LLM: big.llm(), MaxTranscriptBytes: 100 << 10}).Negotiate(context.Background(), url, weatherTask())
	if !errors.Is(err, ErrTranscriptTooLarge) {
		t.Fatalf("got %v", err)
	}
}

// A final protocol the SDK could not read (no front matter) is sent back
// to the model, which may fix it within the bound.
func TestNegotiationRetriesUnreadableFinalProtocol(t *testing.T) {
	bobLLM := newScriptedLLM(t, bobScript)
	_, url := startBob(t, agentSetup{Options: Options{Name: "bob", LLM: bobLLM.llm()}})
	var told string
	alice := newScriptedLLM(t, func(msgs []Message) string {
		switch len(msgs) {
		case 2:
			return "Proposal."
		case 4:
			return "<FINALPROTOCOL>no front matter</FINALPROTOCOL>"
		}
		told = lastUser(msgs)
		return "<FINALPROTOCOL>" + agreedDoc + "</FINALPROTOCOL>"
	})
	got, err := (&Negotiator{LLM: alice.llm()}).Negotiate(context.Background(), url, weatherTask())
	if err != nil || got.Rounds != 3 || !strings.Contains(told, "front matter") {
		t.Fatalf("got %+v, %v; model told %q", got, err, told)
	}
	if len(bobLLM.Calls()) != 1 {
		t.Fatalf("the unreadable protocol went to the receiver: %d calls", len(bobLLM.Calls()))
	}
}
