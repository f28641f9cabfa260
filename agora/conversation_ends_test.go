package agora

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"
)

// TestRefusedConversationsCostNoState: closed-at-birth conversations are
// recognised by their id, so refusing many multi-round requests stores
// nothing.
func TestRefusedConversationsCostNoState(t *testing.T) {
	_, d := weatherDoc(t)
	cfg := weatherConfig(d)
	cfg.Limits.PerClientRate = -1 // 200 requests from one address: the rate limit is not under test
	a, bob := startBob(t, cfg)
	for i := 0; i < 200; i++ {
		req, _ := json.Marshal(map[string]any{"protocolHash": nil, "protocolSources": []string{}, "body": fmt.Sprint("question ", i), "multiround": true})
		if ans := call(t, "POST", bob, req); !isClosedConversationID(ans.ConversationID) {
			t.Fatalf("answer %v", ans)
		}
	}
	if n := a.convs.Len(); n != 0 {
		t.Fatalf("%d conversations stored for refusals", n)
	}
}

// TestExpiredIDsAreBounded: at most conversations.max expired ids are
// remembered, the oldest dropped first, each for one idle period.
func TestExpiredIDsAreBounded(t *testing.T) {
	s := newConversations(ConversationLimits{Max: 3, PerClient: 10, IdleExpiry: time.Minute, MaxTurns: 5})
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s.now = func() time.Time { return now }
	var ids []string
	for i := 0; i < 10; i++ {
		c, err := s.Open("client", Request{}, weather)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, c.ID)
		now = now.Add(2 * time.Minute) // expires before the next Open sweeps
	}
	// The newest expires on this read, and is remembered for the next.
	for i := 0; i < 2; i++ {
		if _, err := s.Get(ids[9]); err != ErrConversationExpired {
			t.Fatalf("newest, read %d: %v", i, err)
		}
	}
	if len(s.expired.at) > 3 || len(s.expired.order) > 3 {
		t.Fatalf("%d expired ids remembered, cap 3", len(s.expired.at))
	}
	if _, err := s.Get(ids[0]); err != ErrUnknownConversation {
		t.Fatalf("oldest, dropped: %v", err)
	}
	if _, err := s.Get(ids[8]); err != ErrUnknownConversation {
		t.Fatalf("expired longer than an idle period ago: %v", err)
	}
}
