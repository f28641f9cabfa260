package agent

// Our agent as the receiver of the Python SDK's Sender: every request is
// byte-shaped like agora-protocol 0.2.0's transporter (sdkshapes_test.go).

import (
	"strings"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/protocol"
)

// TestSDKMultiroundRefusalGetsClosedConversation: the SDK sends natural
// language and negotiation as multi-round requests and raises
// "Multiround conversation did not return conversationId" on a first reply
// without one, so every refusal of a multi-round request carries the id of
// a conversation that is already closed, and the same refusal text.
func TestSDKMultiroundRefusalGetsClosedConversation(t *testing.T) {
	doc, d := weatherDoc(t)
	banned := strings.Repeat("cd", 20)
	cfg := weatherConfig(d)
	cfg.Unsupported = []string{banned}
	_, bob := startBob(t, cfg)
	unknownDoc := "# Some other protocol\n\nNobody here speaks it.\n"
	cases := []struct {
		name  string
		query func(multiround bool) pyDict
		code  string
	}{
		// Sender.execute_task without a protocol.
		{"natural language", func(m bool) pyDict {
			return sdkQuery(nil, []string{}, "What is the weather forecast for London, UK on 2024-09-27?", m)
		}, "no_llm"},
		// Sender._negotiate_protocol: new_conversation(target, True, "negotiation", None).
		{"negotiation", func(m bool) pyDict {
			return sdkQuery("negotiation", nil, "Hello! Shall we agree on a protocol for weather forecasts?", m)
		}, "no_llm"},
		{"unsupported protocol", func(m bool) pyDict {
			return sdkQuery(sdkHash(unknownDoc), []string{sdkDataURI(unknownDoc)}, "{}", m)
		}, "unsupported_protocol"},
		{"explicitly unsupported", func(m bool) pyDict {
			return sdkQuery(protocol.MustParseDigest(banned).Base64(), []string{sdkDataURI(string(doc))}, "{}", m)
		}, "explicitly_unsupported"},
		{"malformed hash", func(m bool) pyDict {
			return sdkQuery("not-a-hash", []string{}, "{}", m)
		}, "malformed_hash"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			single := sdkPost(t, bob, c.query(false))
			first := sdkPost(t, bob, c.query(true))
			id, ok := first["conversationId"].(string)
			if !ok || id == "" {
				t.Fatalf("the SDK raises 'Multiround conversation did not return conversationId' on %v", first)
			}
			status, body := sdkSees(t, first)
			if status == StatusSuccess || first["code"] != c.code {
				t.Fatalf("answer %v, want a refusal with code %s", first, c.code)
			}
			if body != single["body"] || first["error"] != single["error"] || body == "" {
				t.Fatalf("multi-round refusal %v differs from the single-round one %v", first, single)
			}
			if _, ok := first["conversationExpires"].(float64); !ok {
				t.Fatalf("no conversationExpires beside conversationId: %v", first)
			}
			// The SDK's querier may try again in the same conversation: it
			// posts the same raw_query to {target}/conversations/{id}.
			again := sdkPost(t, bob+"/conversations/"+id, c.query(true))
			if _, body := sdkSees(t, again); again["code"] != "conversation_closed" || !strings.Contains(body.(string), "conversation closed") {
				t.Fatalf("follow-up on a closed conversation: %v", again)
			}
			// Leaving the `with` block, the SDK DELETEs it and raises unless HTTP 200.
			sdkDelete(t, bob+"/conversations/"+id)
		})
	}
}

// TestSDKTransporterSeesTheErrorText: the SDK's transporter keeps only
// status and body, so failure and rejected answers carry their human
// message in body as well as in error.
func TestSDKTransporterSeesTheErrorText(t *testing.T) {
	_, d := weatherDoc(t)
	_, bob := startBob(t, weatherConfig(d))
	other := "# Other\n"
	for _, q := range []pyDict{
		sdkQuery(nil, []string{}, "What is the weather like?", false),
		sdkQuery(sdkHash(other), []string{sdkDataURI(other)}, "{}", false),
		sdkQuery(d.Base64(), []string{"https://127.0.0.1:1/nowhere"}, "{}", false),
	} {
		a := sdkPost(t, bob, q)
		status, body := sdkSees(t, a)
		text, _ := body.(string)
		if status == StatusSuccess || text == "" || text != a["error"] {
			t.Errorf("the SDK sees status %q, body %q (whole answer %v)", status, text, a)
		}
	}
}

// TestSDKDataURIOfADocumentAtTheLimit: a protocol without sources goes as
// encode_as_data_uri(document), percent-encoded UTF-8, three characters per
// byte at worst. A document of exactly the default document limit, made
// of such bytes, is accepted with the default request limit.
func TestSDKDataURIOfADocumentAtTheLimit(t *testing.T) {
	head := "---\nname: Weather at the limit\nmultiround: false\n---\n\n# Weather °C\n\n"
	var b strings.Builder
	b.WriteString(head)
	for b.Len()+len("° ") <= protocol.DefaultMaxDocumentBytes {
		b.WriteString("° ") // every byte percent-encoded: 3 characters each
	}
	for b.Len() < protocol.DefaultMaxDocumentBytes {
		b.WriteString(" ")
	}
	doc := b.String()
	sums, err := protocol.Hash([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	uri := sdkDataURI(doc)
	query := sdkQuery(sdkHash(doc), []string{uri}, londonQuery, false)
	t.Logf("document %d bytes, data URI %d characters (%.2f×), request %d bytes",
		len(doc), len(uri), float64(len(uri))/float64(len(doc)), len(pyDumps(query)))
	_, bob := startBob(t, weatherConfig(sums.SHA1)) // default limits
	a := sdkPost(t, bob, query)
	if status, body := sdkSees(t, a); status != StatusSuccess || body != londonAnswer {
		t.Fatalf("answer %v", a)
	}
	// One byte more is refused as a document over the limit, not as a
	// request over the limit.
	bigger := doc + " "
	a = sdkPost(t, bob, sdkQuery(sdkHash(bigger), []string{sdkDataURI(bigger)}, londonQuery, false))
	if a["status"] != StatusRejected || strings.Contains(a["error"].(string), "request exceeds") {
		t.Fatalf("a document one byte over the limit: %v", a)
	}
}

// TestSDKConversationRoundTrip: a protocol conversation the SDK's way. Every
// follow-up repeats the first request's protocolHash (Base64) and sources;
// every reply carries conversationId and conversationExpires; close() is a
// bare DELETE.
func TestSDKConversationRoundTrip(t *testing.T) {
	doc, d := weatherDoc(t)
	before := time.Now().Add(DefaultIdleExpiry).Unix()
	_, bob := startBob(t, weatherConfig(d))
	sources := []string{sdkDataURI(string(doc))}
	first := sdkPost(t, bob, sdkQuery(d.Base64(), sources, londonQuery, true))
	id, _ := first["conversationId"].(string)
	if status, body := sdkSees(t, first); status != StatusSuccess || body != londonAnswer || id == "" {
		t.Fatalf("first: %v", first)
	}
	after := time.Now().Add(DefaultIdleExpiry).Unix()
	if got, _ := first["conversationExpires"].(float64); int64(got) < before || int64(got) > after {
		t.Fatalf("conversationExpires %v, want between %d and %d", first["conversationExpires"], before, after)
	}
	next := sdkPost(t, bob+"/conversations/"+id, sdkQuery(d.Base64(), sources, `{"location": "Paris", "date": "2024-10-01"}`, true))
	if status, body := sdkSees(t, next); status != StatusSuccess || !strings.Contains(body.(string), "weatherCondition") {
		t.Fatalf("follow-up: %v", next)
	}
	if end := sdkDelete(t, bob+"/conversations/"+id); end["status"] != StatusSuccess {
		t.Fatalf("close: %v", end)
	}
}

// TestSDKEscapedTextReachesTheRoutineExactly: json.dumps escapes every
// non-ASCII character (astral ones as surrogate pairs); the routine gets
// the text the SDK's caller wrote.
func TestSDKEscapedTextReachesTheRoutineExactly(t *testing.T) {
	doc := "# Echo\n\nThe answer is the request.\n"
	sums, _ := protocol.Hash([]byte(doc))
	cfg := Config{Protocols: []ProtocolConfig{{Hash: sums.SHA1.Hex(), Routine: RoutineConfig{Exec: &ExecConfig{Command: "cat"}}}}}
	_, bob := startBob(t, cfg)
	text := "21 °C in Zürich 😀, \"quoted\"\ttab\r\nnext line \u2028 \x7f"
	a := sdkPost(t, bob, sdkQuery(sdkHash(doc), []string{sdkDataURI(doc)}, text, false))
	if status, body := sdkSees(t, a); status != StatusSuccess || body != text {
		t.Fatalf("echo: %q (%v)", body, a)
	}
}
