// Package routine holds the code that answers Agora requests: the built-in
// Weather Protocol v1, external commands (exec), HTTP forwarding, and an
// OpenAI-compatible chat model for natural language.
package routine

import (
	"context"
	"fmt"

	"github.com/agora-registry/registry/internal/apperr"
)

// Request is what a routine answers.
type Request struct {
	// Document is the verified protocol document; nil for natural language.
	Document []byte
	// Negotiation marks a protocol negotiation ("protocolHash": "negotiation").
	Negotiation bool
	Body        string
	// History holds the earlier turns of a multi-round conversation.
	History []Turn
}

// Turn is one request/answer pair of a conversation.
type Turn struct {
	Request string
	Answer  string
}

// Routine answers requests. An error means the agent failed in a way the
// protocol does not cover (status "failure"); errors the protocol describes
// are answered normally.
type Routine interface {
	Answer(ctx context.Context, req Request) (string, error)
}

// Func adapts a function to Routine.
type Func func(ctx context.Context, req Request) (string, error)

// Answer calls f.
func (f Func) Answer(ctx context.Context, req Request) (string, error) { return f(ctx, req) }

// Errors, with stable codes.
var (
	ErrTimeout   = apperr.New(apperr.Unavailable, "routine_timeout", "the routine did not answer in time")
	ErrCrashed   = apperr.New(apperr.Internal, "routine_failed", "the routine failed")
	ErrTooLarge  = apperr.New(apperr.TooLarge, "routine_output_too_large", "the routine's answer is too large")
	ErrNoLLM     = apperr.New(apperr.Unavailable, "no_llm", "no LLM configured: this agent answers only the protocols listed at /.wellknown")
	ErrLLMFailed = apperr.New(apperr.Unavailable, "llm_failed", "the LLM did not answer")
)

// failed is sentinel with its generic message for the sender, the detail
// kept as the cause: the agent logs it, the sender never sees it (it names
// internal URLs, commands and what they printed). Redact credentials before
// they reach the detail.
func failed(sentinel *apperr.Error, format string, args ...any) error {
	return apperr.Wrap(sentinel.Kind, sentinel.Code, sentinel.Message, fmt.Errorf(format, args...))
}
