package agora

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestSpecV02ConversationExpires: multi-round replies carry
// conversationExpires (Unix seconds); once past, the conversation answers
// failure "Conversation expired".
func TestSpecV02ConversationExpires(t *testing.T) {
	doc, d := weatherDoc(t)
	cfg := weatherConfig(d)
	cfg.Conversations.IdleExpiry = time.Minute
	var clock atomicTime
	clock.Store(time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC))
	bob := startBobAt(t, cfg, &clock)
	raw := func(body string) []byte {
		return []byte(`{"protocolHash": "` + d.Hex() + `", "protocolSources": ["` + DataURI(doc) + `"], "body": ` + mustJSON(body) + `, "multiround": true}`)
	}
	var open map[string]any
	json.Unmarshal([]byte(mustJSON(call(t, "POST", bob, raw(londonQuery)))), &open)
	id, _ := open["conversationId"].(string)
	if open["conversationExpires"] != float64(clock.Load().Add(time.Minute).Unix()) {
		t.Fatalf("open: %v", open)
	}
	clock.Store(clock.Load().Add(30 * time.Second))
	next := call(t, "POST", bob+"/conversations/"+id, []byte(`{"body": `+mustJSON(londonQuery)+`}`))
	if next.Status != StatusSuccess || next.ConversationExpires != clock.Load().Add(time.Minute).Unix() {
		t.Fatalf("the expiry does not move with use: %+v", next)
	}
	clock.Store(clock.Load().Add(61 * time.Second))
	for i := 0; i < 2; i++ { // the first notices the expiry, the second finds it remembered
		late := call(t, "POST", bob+"/conversations/"+id, []byte(`{"body": `+mustJSON(londonQuery)+`}`))
		if late.Status != StatusFailure || !strings.HasPrefix(late.Body, "Conversation expired") {
			t.Fatalf("after expiry (%d): %+v", i, late)
		}
	}
	// Unknown ids stay "unknown", not "expired".
	if a := call(t, "POST", bob+"/conversations/0123456789abcdef0123456789abcdef", []byte(`{"body": "x"}`)); a.Code != "unknown_conversation" {
		t.Fatalf("unknown id: %+v", a)
	}
}

// atomicTime is a test clock the agent's goroutines read while the test
// moves it.
type atomicTime struct{ v atomic.Value }

func (c *atomicTime) Store(t time.Time) { c.v.Store(t) }
func (c *atomicTime) Load() time.Time   { return c.v.Load().(time.Time) }

// startBobAt runs an agent whose conversations read the time from clock,
// set before the server starts.
func startBobAt(t *testing.T, cfg agentSetup, clock *atomicTime) string {
	t.Helper()
	a, _ := startBob(t, cfg)
	a.convs.now = clock.Load
	srv := httptest.NewServer(a)
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestConversationsExpireAndAreCapped(t *testing.T) {
	s := newConversations(ConversationLimits{Max: 2, IdleExpiry: time.Minute, MaxTurns: 3})
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	s.now = func() time.Time { return now }
	c1, err := s.Open("a", Request{}, weather)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Open("b", Request{}, weather); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Open("c", Request{}, weather); err != ErrTooManyConvs {
		t.Fatalf("third conversation: %v", err)
	}
	now = now.Add(2 * time.Minute)
	if _, err := s.Get(c1.ID); err != ErrConversationExpired {
		t.Fatalf("expired conversation: %v", err)
	}
	c3, err := s.Open("c", Request{}, weather)
	if err != nil {
		t.Fatalf("open after expiry: %v", err)
	}
	for i := 0; i < 5; i++ {
		s.record(c3, "q", "a")
	}
	if len(c3.request.History) != 3 {
		t.Fatalf("history not capped: %d", len(c3.request.History))
	}
}
func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// atomicTime is a test clock the agent's goroutines read while the test
// moves it.
