package agora

import (
	"context"
	"fmt"
)

// Request is what a Routine answers: one transaction, or one turn of a
// multi-round conversation.
type Request struct {
	// Document is the verified protocol document; nil for natural language.
	Document []byte
	// Negotiation marks a protocol negotiation ("protocolHash": "negotiation").
	Negotiation bool
	// Agent describes the receiving agent for a negotiation: its name,
	// description, kinds and the protocols it answers (the SDK's
	// additional_info).
	Agent string
	// Body is the sender's body, as text (a JSON object body is its JSON).
	Body string
	// History holds the earlier turns of a multi-round conversation.
	History []Turn
}

// Turn is one request/answer pair of a conversation.
type Turn struct {
	Request string
	Answer  string
}

// Routine answers requests for one protocol. An error means the agent
// failed in a way the protocol does not cover (status "failure", with the
// error's code when it is an *Error); errors the protocol describes are
// answered normally, as a body.
type Routine interface {
	Answer(ctx context.Context, req Request) (string, error)
}

// RoutineFunc adapts a function to Routine.
type RoutineFunc func(ctx context.Context, req Request) (string, error)

// Answer calls f.
func (f RoutineFunc) Answer(ctx context.Context, req Request) (string, error) { return f(ctx, req) }

// Routine errors, with stable codes.
var (
	ErrNoLLM     = newError(KindUnavailable, "no_llm", "no LLM configured: this agent answers only the protocols listed at /.wellknown")
	ErrLLMFailed = newError(KindUnavailable, "llm_failed", "the LLM did not answer")
)

// failed is sentinel with its generic message for the sender, the detail
// kept as the cause: the agent logs it, the sender never sees it (it names
// internal URLs and what they printed).
func failed(sentinel *Error, format string, args ...any) error {
	return wrapError(sentinel.Kind, sentinel.Code, sentinel.Message, fmt.Errorf(format, args...))
}
