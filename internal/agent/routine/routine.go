// Package routine holds the code that answers Agora requests: the built-in
// Weather Protocol v1, external commands (exec), HTTP forwarding, and an
// OpenAI-compatible chat model for natural language.
package routine

import (
	"fmt"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/apperr"
)

// The routine vocabulary is the public agora module's.
type (
	Request = agora.Request
	Turn    = agora.Turn
	Routine = agora.Routine
	Func    = agora.RoutineFunc
	// LLM answers with an OpenAI-compatible chat completions endpoint.
	LLM = agora.LLM
)

// Errors, with stable codes.
var (
	ErrTimeout   = apperr.New(apperr.Unavailable, "routine_timeout", "the routine did not answer in time")
	ErrCrashed   = apperr.New(apperr.Internal, "routine_failed", "the routine failed")
	ErrTooLarge  = apperr.New(apperr.TooLarge, "routine_output_too_large", "the routine's answer is too large")
	ErrNoLLM     = agora.ErrNoLLM
	ErrLLMFailed = agora.ErrLLMFailed
)

// failed is sentinel with its generic message for the sender, the detail
// kept as the cause: the agent logs it, the sender never sees it (it names
// internal URLs, commands and what they printed). Redact credentials before
// they reach the detail.
func failed(sentinel *apperr.Error, format string, args ...any) error {
	return apperr.Wrap(sentinel.Kind, sentinel.Code, sentinel.Message, fmt.Errorf(format, args...))
}
