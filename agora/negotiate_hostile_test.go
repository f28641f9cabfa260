package agora

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// hostileTarget is a target agent on a real socket that opens every
// negotiation and answers every message with reply (success).
func hostileTarget(t *testing.T, reply string, conversationID string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete {
			_ = json.NewEncoder(w).Encode(map[string]string{"status": "success", "body": ""})
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]string{"status": "success", "body": reply, "conversationId": conversationID})
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// A target's reply counts against the transcript before the model sees
// it: a hostile target answering 1 MiB (within the 4 MiB reply bound)
// never makes the sender send its model more than MaxTranscriptBytes.
func TestHostileTargetCannotInflateTheModelsPrompt(t *testing.T) {
	url := hostileTarget(t, strings.Repeat("A", 1<<20), "c1")
	alice := newScriptedLLM(t, func([]Message) string { return "Proposal." })
	const bound = 64 << 10
	_, err := (&Negotiator{LLM: alice.llm(), MaxTranscriptBytes: bound}).Negotiate(context.Background(), url, weatherTask())
	if !errors.Is(err, ErrTranscriptTooLarge) {
		t.Fatalf("got %v", err)
	}
	for i, call := range alice.Calls() {
		size := 0
		for _, m := range call {
			size += len(m.Content)
		}
		if size > bound {
			t.Errorf("model call %d carried %d bytes, over the %d-byte transcript bound", i+1, size, bound)
		}
	}
}

// What a hostile target says in a refusal reaches the user's terminal
// only quoted: no escape sequence survives into the error text.
func TestHostileTargetRefusalIsQuoted(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{"status": "failure", "error": "no\x1b]0;owned\x07\x1b[2J\r\nfake line"})
	}))
	t.Cleanup(srv.Close)
	alice := newScriptedLLM(t, func([]Message) string { return "Proposal." })
	_, err := (&Negotiator{LLM: alice.llm()}).Negotiate(context.Background(), srv.URL, weatherTask())
	if !errors.Is(err, ErrNegotiationRefused) {
		t.Fatalf("got %v", err)
	}
	if strings.ContainsAny(err.Error(), "\x1b\x07\r\n") {
		t.Fatalf("the refusal carries control characters: %q", err.Error())
	}
}

// A target that lists many protocols whose documents cannot be obtained
// makes the sender try at most limit of them: the fourth criterion is not
// a fetch amplifier aimed at the sources (or registries) it names.
func TestListedCandidatesTriesAtMostLimit(t *testing.T) {
	var fetches atomic.Int64
	src := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		http.Error(w, "nope", http.StatusNotFound)
	}))
	t.Cleanup(src.Close)
	wk := newWellKnownInfo()
	for i := 0; i < 200; i++ {
		sums, _ := Hash([]byte(strings.Repeat("x", i+1)))
		wk.Supported[sums.SHA1] = []string{src.URL + "/a", src.URL + "/b"}
	}
	r, err := NewResolver(ResolverOptions{CacheDir: t.TempDir(), Fetch: FetchPolicy{Allow: []string{"127.0.0.1"}}, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	const limit = 3
	if got := ListedCandidates(context.Background(), r, wk, limit); len(got) != 0 {
		t.Fatalf("candidates %d", len(got))
	}
	if n := fetches.Load(); n > 2*limit {
		t.Fatalf("the sender made %d fetches for a limit of %d candidates (2 sources each)", n, limit)
	}
}

// One client negotiating again and again adopts at most
// MaxAdoptedPerClient protocols: the lifetime budget stays for the others.
func TestOneClientCannotTakeTheAdoptionBudget(t *testing.T) {
	ctx := context.Background()
	bobLLM := newScriptedLLM(t, func([]Message) string { return "ok" })
	bob, url := startBob(t, agentSetup{Options: Options{Name: "bob", LLM: bobLLM.llm()}})
	for i := 0; i < MaxAdoptedPerClient+3; i++ {
		alice := newScriptedLLM(t, aliceScript)
		if _, err := (&Negotiator{LLM: alice.llm()}).Negotiate(ctx, url, weatherTask()); err != nil {
			t.Fatal(err)
		}
		doc := []byte(agreedDoc + "\n\nVariant " + strings.Repeat("i", i+1) + ".\n")
		sums, err := Hash(doc)
		if err != nil {
			t.Fatal(err)
		}
		hash := sums.SHA1.Hex()
		r, err := Send(ctx, http.DefaultClient, url, Outgoing{ProtocolHash: &hash, ProtocolSources: []string{DataURI(doc)}, Body: "{}"})
		if err != nil || r.Status != StatusSuccess {
			t.Fatalf("use %d: %+v, %v", i, r, err)
		}
	}
	if n := len(bob.Supported()); n != MaxAdoptedPerClient {
		t.Fatalf("one client adopted %d protocols, want %d", n, MaxAdoptedPerClient)
	}
}

// An adopted protocol whose document came inline and is large is listed
// without a source: a sender cannot make every GET of the well-known
// documents carry its megabyte (nor push them past readers' limits).
func TestAdoptedLargeInlineDocumentIsNotAdvertisedInline(t *testing.T) {
	ctx := context.Background()
	bobLLM := newScriptedLLM(t, func([]Message) string { return "ok" })
	bob, url := startBob(t, agentSetup{Options: Options{Name: "bob", LLM: bobLLM.llm()}})
	alice := newScriptedLLM(t, aliceScript)
	if _, err := (&Negotiator{LLM: alice.llm()}).Negotiate(ctx, url, weatherTask()); err != nil {
		t.Fatal(err)
	}
	doc := []byte(agreedDoc + "\n\n" + strings.Repeat("Padding the document to a large size. ", 200<<10/38) + "\n")
	sums, err := Hash(doc)
	if err != nil {
		t.Fatal(err)
	}
	hash := sums.SHA1.Hex()
	r, err := Send(ctx, http.DefaultClient, url, Outgoing{ProtocolHash: &hash, ProtocolSources: []string{DataURI(doc)}, Body: "{}"})
	if err != nil || r.Status != StatusSuccess {
		t.Fatalf("use: %+v, %v", r, err)
	}
	if !adoptedListed(bob, sums.SHA1) {
		t.Fatal("the negotiated protocol was not adopted")
	}
	for _, path := range []string{"/.wellknown", "/wellknown", "/.well-known/agora"} {
		resp, err := http.Get(url + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if len(body) > 16<<10 {
			t.Errorf("%s is %d bytes after adopting one large inline document", path, len(body))
		}
	}
}
