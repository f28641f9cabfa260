package agora

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestConversationHistoryStaysWithinItsBudget replays the attack
// with the default limits: 4 multi-round conversations, each fed 20 turns
// of a 1 MB body (any body is a success for the weather protocol, which
// answers a bad one with its own error). Today every turn is kept (80 MB);
// with the budget each conversation keeps only what fits MaxHistoryBytes,
// counted in bytes, and every conversation still answers.
func TestConversationHistoryStaysWithinItsBudget(t *testing.T) {
	doc, d := weatherDoc(t)
	cfg := weatherConfig(d)
	cfg.Limits.PerClientRate = -1 // this test is about memory, not rate
	bob, url := startBob(t, cfg)
	limits := bob.cfg.Conversations
	const conversations, turns = 4, 20
	big := strings.Repeat("x", 1_000_000)
	followUp, _ := json.Marshal(map[string]string{"body": big})
	sent := 0
	for c := 0; c < conversations; c++ {
		open, _ := json.Marshal(map[string]any{"protocolHash": d.Hex(), "protocolSources": []string{DataURI(doc)}, "body": big, "multiround": true})
		a := call(t, "POST", url, open)
		if a.Status != StatusSuccess || a.ConversationID == "" {
			t.Fatalf("open %d: %+v", c, a)
		}
		sent += len(big)
		for i := 1; i < turns; i++ {
			if b := call(t, "POST", url+"/conversations/"+a.ConversationID, followUp); b.Status != StatusSuccess {
				t.Fatalf("conversation %d turn %d: %+v", c, i, b)
			}
			sent += len(big)
		}
		// The conversation keeps answering after its history was trimmed.
		if b := call(t, "POST", url+"/conversations/"+a.ConversationID, []byte(`{"body": `+quote(londonQuery)+`}`)); b.Status != StatusSuccess || b.Body != londonAnswer {
			t.Fatalf("conversation %d after trimming: %+v", c, b)
		}
	}
	held := bob.convs.Bytes()
	bound := conversations * (len(doc) + limits.MaxHistoryBytes)
	t.Logf("sent %d MB of turns; conversations hold %d bytes (bound %d)", sent/1_000_000, held, bound)
	if held > bound {
		t.Fatalf("conversations hold %d bytes after %d bytes of turns; the budget allows %d", held, sent, bound)
	}
	if held < conversations*len(doc) {
		t.Fatalf("conversations hold %d bytes, less than their documents: the counter is wrong", held)
	}
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// TestConversationBudgetCounts checks the byte accounting itself: the
// newest turns are kept within the per-conversation budget, the total
// budget refuses a document that does not fit and squeezes histories, and
// ending or expiring a conversation gives its bytes back.
func TestConversationBudgetCounts(t *testing.T) {
	s := newConversations(ConversationLimits{MaxHistoryBytes: 100, MaxTotalBytes: 1000, IdleExpiry: time.Minute})
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	s.now = func() time.Time { return now }
	doc := []byte(strings.Repeat("d", 300))
	c1, err := s.Open("a", Request{Document: doc, Body: strings.Repeat("b", 500)}, weather)
	if err != nil {
		t.Fatal(err)
	}
	if s.Bytes() != 300 {
		t.Fatalf("after open: %d bytes, want the document's 300 (the opening body is not kept)", s.Bytes())
	}
	for i := 0; i < 10; i++ {
		s.record(c1, fmt.Sprintf("q%02d", i)+strings.Repeat("r", 27), strings.Repeat("a", 10)) // 40 bytes a turn
	}
	if h := c1.request.History; len(h) != 2 || !strings.HasPrefix(h[0].Request, "q08") || !strings.HasPrefix(h[1].Request, "q09") {
		t.Fatalf("history %d turns, want the newest 2 that fit 100 bytes", len(h))
	}
	if s.Bytes() != 300+80 {
		t.Fatalf("after 10 turns: %d bytes, want 380", s.Bytes())
	}
	// A turn over the history budget on its own is not kept.
	s.record(c1, strings.Repeat("z", 101), "")
	if len(c1.request.History) != 0 || s.Bytes() != 300 {
		t.Fatalf("oversized turn: %d turns, %d bytes", len(c1.request.History), s.Bytes())
	}
	c2, err := s.Open("b", Request{Document: doc}, weather)
	if err != nil {
		t.Fatal(err)
	}
	c3, err := s.Open("c", Request{Document: doc}, weather)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Open("d", Request{Document: doc}, weather); err != ErrConvMemoryFull {
		t.Fatalf("a fourth 300-byte document in a 1000-byte budget: %v", err)
	}
	// 900 of 1000 bytes are documents: c3's history gets what is left.
	s.record(c3, strings.Repeat("q", 60), "")
	s.record(c3, strings.Repeat("q", 60), "")
	if len(c3.request.History) != 1 || s.Bytes() != 960 {
		t.Fatalf("squeezed history: %d turns, %d bytes; want 1 turn, 960 bytes", len(c3.request.History), s.Bytes())
	}
	if err := s.End(c3.ID); err != nil {
		t.Fatal(err)
	}
	if s.Bytes() != 600 {
		t.Fatalf("after End: %d bytes, want 600", s.Bytes())
	}
	s.record(c3, "late turn of an ended conversation", "")
	if s.Bytes() != 600 {
		t.Fatalf("a turn recorded after End was charged: %d bytes", s.Bytes())
	}
	now = now.Add(2 * time.Minute)
	if _, err := s.Get(c2.ID); err != ErrConversationExpired {
		t.Fatal(err)
	}
	if _, err := s.Open("e", Request{}, weather); err != nil {
		t.Fatal(err)
	}
	if s.Bytes() != 0 || s.Len() != 1 {
		t.Fatalf("after expiry: %d bytes in %d conversations, want 0 in 1", s.Bytes(), s.Len())
	}
}
