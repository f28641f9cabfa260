package agora

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"unicode/utf16"
)

// The prompts are the SDK's, word for word. testdata/sdk_negotiation_prompts.json
// was written by running the constants of the SDK's two negotiator.py files
// (v0.2.0) through Python: TASK_NEGOTIATOR_PROMPT with a task schema as
// SenderNegotiator builds it, TOOLS_NEGOTIATOR_PROMPT as
// ReceiverNegotiator.create_conversation builds it with no tools and
// additional_info "INFO".
func TestNegotiationPromptsAreTheSDKs(t *testing.T) {
	raw, err := os.ReadFile("testdata/sdk_negotiation_prompts.json")
	if err != nil {
		t.Fatal(err)
	}
	var sdk struct {
		Task struct {
			Description  string          `json:"description"`
			InputSchema  json.RawMessage `json:"input_schema"`
			OutputSchema json.RawMessage `json:"output_schema"`
		} `json:"task"`
		Sender, Receiver, Info string
	}
	var fields map[string]json.RawMessage
	json.Unmarshal(raw, &fields)
	json.Unmarshal(fields["task"], &sdk.Task)
	json.Unmarshal(fields["sender_prompt"], &sdk.Sender)
	json.Unmarshal(fields["receiver_prompt"], &sdk.Receiver)
	json.Unmarshal(fields["additional_info"], &sdk.Info)
	task := TaskSchema{Description: sdk.Task.Description, InputSchema: sdk.Task.InputSchema, OutputSchema: sdk.Task.OutputSchema}
	if got := senderNegotiationPrompt(task, ""); got != sdk.Sender {
		t.Errorf("sender prompt differs from the SDK's:\n--- ours\n%s\n--- SDK\n%s", got, sdk.Sender)
	}
	if got := receiverNegotiationPrompt(sdk.Info); got != sdk.Receiver {
		t.Errorf("receiver prompt differs from the SDK's:\n--- ours\n%s\n--- SDK\n%s", got, sdk.Receiver)
	}
}

func TestExtractFinalProtocol(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{"<FINALPROTOCOL>\n doc \n</FINALPROTOCOL>", "doc", true},
		{"İİ before <finalProtocol>x</FINALprotocol> after", "x", true}, // İ lowers to 3 bytes: offsets must not shift
		{"a <FINALPROTOCOL>one</FINALPROTOCOL> b <FINALPROTOCOL>two</FINALPROTOCOL>", "one", true},
		{"</FINALPROTOCOL> then <FINALPROTOCOL>open", "", false},
		{"no tags", "", false},
		{"<FINALPROTOCOL></FINALPROTOCOL>", "", true},
	} {
		got, ok := ExtractFinalProtocol(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("ExtractFinalProtocol(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestParseProtocolMeta(t *testing.T) {
	m, err := ParseProtocolMeta([]byte("---\nname: N\nmultiround: yes please\n---\nbody"))
	if err != nil || m != (ProtocolMeta{Name: "N", Description: defaultProtocolDescription, Multiround: true}) {
		t.Fatalf("got %+v, %v", m, err)
	}
	m, _ = ParseProtocolMeta([]byte("---\nmultiround: 0\n---\n"))
	if m.Name != defaultProtocolName || m.Multiround {
		t.Fatalf("defaults: %+v", m)
	}
	for _, bad := range []string{"no front matter", "---\nname: x\n", "---\n[1, 2]\n---\n", "---\nname: [\n---\n"} {
		if _, err := ParseProtocolMeta([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// pyJSON is Python's json.dumps with its defaults (", " and ": "
// separators, non-ASCII escaped as \uXXXX), which requests.post(json=...)
// sends; keys are given in order.
func pyJSON(kv ...any) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i := 0; i < len(kv); i += 2 {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s: %s", pyValue(kv[i]), pyValue(kv[i+1]))
	}
	b.WriteByte('}')
	return b.Bytes()
}

func pyValue(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	var out strings.Builder
	for _, r := range strings.TrimSuffix(b.String(), "\n") {
		if r < 128 {
			out.WriteRune(r)
			continue
		}
		for _, u := range utf16.Encode([]rune{r}) {
			fmt.Fprintf(&out, `\u%04x`, u)
		}
	}
	return out.String()
}

// sdkSender behaves as the SDK's SenderNegotiator over its
// SimpleSenderTransporter (agora/sender/components/negotiator.py and
// transporter.py, v0.2.0): the model answers "Hello! How may I help you?",
// every message without <FINALPROTOCOL> is POSTed with the same four keys
// (to / first, then /conversations/{id}), the reply's status and body are
// read (a missing key is the SDK's KeyError, a failure status too, as its
// transporter drops "message"), and the conversation is DELETEd at the end.
func sdkSender(t *testing.T, target string, model func(other string) string, maxRounds int) (string, bool) {
	t.Helper()
	id := ""
	defer func() {
		if id != "" {
			req, _ := http.NewRequest(http.MethodDelete, target+"/conversations/"+id, nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil || resp.StatusCode != 200 {
				t.Errorf("SDK close: %v", err)
			}
			if resp != nil {
				resp.Body.Close()
			}
		}
	}()
	other := NegotiationOpening
	for i := 0; i < maxRounds; i++ {
		message := model(other)
		if doc, ok := ExtractFinalProtocol(message); ok {
			return doc, true
		}
		url := target
		if id != "" {
			url = target + "/conversations/" + id
		}
		raw := pyJSON("protocolHash", "negotiation", "protocolSources", nil, "body", message, "multiround", true)
		resp, err := http.Post(url, "application/json", bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("SDK: ProtocolTransportError: %s", body)
		}
		var r map[string]any
		if err := json.Unmarshal(body, &r); err != nil {
			t.Fatalf("SDK: response.json() raises on %s", body)
		}
		if id == "" {
			cid, ok := r["conversationId"].(string)
			if !ok {
				t.Fatalf("SDK: Multiround conversation did not return conversationId: %s", body)
			}
			id = cid
		}
		status, okS := r["status"]
		b, okB := r["body"].(string)
		if !okS || !okB {
			t.Fatalf("SDK: KeyError reading status/body of %s", body)
		}
		if status != "success" {
			t.Fatalf("SDK: KeyError 'message' (status %v) on %s", status, body)
		}
		other = b
	}
	return "", false
}

func TestReceiverNegotiatesWithTheSDKsSender(t *testing.T) {
	bobLLM := newScriptedLLM(t, bobScript)
	bob, url := startBob(t, agentSetup{Options: Options{Name: "bob", LLM: bobLLM.llm()}})
	var heard []string
	turn := 0
	model := func(other string) string {
		heard = append(heard, other)
		turn++
		if turn < 3 {
			return fmt.Sprintf("Round %d: température en °C? <b>&</b>", turn)
		}
		return "<FINALPROTOCOL>\n" + agreedDoc + "\n</FINALPROTOCOL>"
	}
	doc, ok := sdkSender(t, url, model, DefaultNegotiationRounds)
	if !ok || doc != agreedDoc {
		t.Fatalf("no protocol: %q", doc)
	}
	if heard[0] != NegotiationOpening || !strings.HasPrefix(heard[1], "I can give forecasts") || heard[2] != "Agreed. We are done." {
		t.Fatalf("the SDK's model heard %q", heard)
	}
	// Bob's model saw the SDK's non-ASCII text decoded, in order.
	calls := bobLLM.Calls()
	if len(calls) != 2 || lastUser(calls[1]) != "Round 2: température en °C? <b>&</b>" || calls[1][2].Content != "I can give forecasts. Send location and date as JSON; I answer the temperature." {
		t.Fatalf("bob's model got %+v", calls)
	}
	if bob.convs.Len() != 0 {
		t.Fatal("the SDK's DELETE did not end the conversation")
	}
}
