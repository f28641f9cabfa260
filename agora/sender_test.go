package agora

import (
	"errors"
	"strings"
	"testing"
)

func TestParseReplyShapes(t *testing.T) {
	cases := map[string]Reply{
		`{"status": "success", "body": "ok"}`:                         {Status: "success", Body: "ok"},
		`{"status": "rejected"}`:                                      {Status: "rejected"},
		`{"status": "failure", "body": "", "error": "boom"}`:          {Status: "failure", Error: "boom"},
		`{"status": "error", "message": "sdk says no"}`:               {Status: "failure", Error: "sdk says no"},
		`{"status": "success", "body": {"a": 1}}`:                     {Status: "success", Body: `{"a": 1}`},
		`{"status": "success", "body": "x", "conversationId": "abc"}`: {Status: "success", Body: "x", ConversationID: "abc"},
	}
	for raw, want := range cases {
		got, err := ParseReply([]byte(raw))
		if err != nil || got != want {
			t.Errorf("%s: got %+v, %v; want %+v", raw, got, err, want)
		}
	}
	for _, raw := range []string{`[]`, `{"body": "x"}`, `{"status": "maybe"}`} {
		if _, err := ParseReply([]byte(raw)); err == nil {
			t.Errorf("%s accepted", raw)
		}
	}
}

func TestChooseProtocolCriteriaInOrder(t *testing.T) {
	d := func(b byte) Digest { var x Digest; x[0] = b; return x }
	weather := Candidate{Digest: d(1), Title: "Weather Protocol"}
	listed := Candidate{Digest: d(2), Title: "Other"}
	impl := Candidate{Digest: d(3), Implemented: true}
	banned := Candidate{Digest: d(4), Implemented: true, Title: "weather"}
	wk := WellKnownInfo{Supported: map[Digest][]string{d(2): nil}, Unsupported: map[Digest]bool{d(4): true}}

	c, err := ChooseProtocol(wk, []Candidate{banned, weather, impl, listed}, "weather")
	if err != nil || c.Candidate.Digest != d(2) {
		t.Fatalf("listed first: %+v %v", c, err)
	}
	c, _ = ChooseProtocol(wk, []Candidate{banned, weather, impl}, "weather")
	if c.Candidate.Digest != d(3) {
		t.Fatalf("implemented second: %+v", c)
	}
	c, _ = ChooseProtocol(wk, []Candidate{banned, {Digest: d(5)}, weather}, "weather forecast")
	if c.Candidate.Digest != d(1) {
		t.Fatalf("metadata third: %+v", c)
	}
	if _, err := ChooseProtocol(wk, []Candidate{banned}, ""); !errors.Is(err, ErrNoProtocol) || !strings.Contains(err.Error(), "unsupported") {
		t.Fatalf("only unsupported: %v", err)
	}
	// Nothing to choose from is not "all unsupported".
	if _, err := ChooseProtocol(wk, nil, ""); !errors.Is(err, ErrNoProtocol) || strings.Contains(err.Error(), "unsupported") {
		t.Fatalf("no candidates: %v", err)
	}
}
