package agora

import (
	"net/http"
	"testing"

	"github.com/agora-registry/registry/agora/agoratest"
)

// The tests' scripted OpenAI-compatible server is agoratest's, with its
// messages read as this package's.
type scriptedLLM struct{ *agoratest.LLM }

func newScriptedLLM(t testing.TB, script func(msgs []Message) string) *scriptedLLM {
	return &scriptedLLM{agoratest.NewTextLLM(t, func(m []agoratest.Message) string { return script(ours(m)) })}
}

func newRawLLM(t testing.TB, script func(w http.ResponseWriter, r *http.Request, msgs []Message)) *scriptedLLM {
	return &scriptedLLM{agoratest.NewLLM(t, func(w http.ResponseWriter, r *http.Request, m []agoratest.Message) { script(w, r, ours(m)) })}
}

func chatReply(w http.ResponseWriter, content string) { agoratest.Reply(w, content) }

func (s *scriptedLLM) llm() *LLM { return &LLM{BaseURL: s.BaseURL(), Model: "scripted"} }

// Calls shadows agoratest's with this package's Message.
func (s *scriptedLLM) Calls() [][]Message {
	var out [][]Message
	for _, c := range s.LLM.Calls() {
		out = append(out, ours(c))
	}
	return out
}

func ours(m []agoratest.Message) []Message {
	out := make([]Message, len(m))
	for i, x := range m {
		out[i] = Message(x)
	}
	return out
}

func lastUser(msgs []Message) string {
	theirs := make([]agoratest.Message, len(msgs))
	for i, m := range msgs {
		theirs[i] = agoratest.Message(m)
	}
	return agoratest.LastUser(theirs)
}
