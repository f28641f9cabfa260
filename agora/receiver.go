package agora

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// Outcome errors, with stable codes.
var (
	ErrExplicitlyUnsupported = newError(KindForbidden, "explicitly_unsupported", "this agent explicitly does not support the protocol (see _unsupported in /.wellknown)")
	ErrUnsupported           = newError(KindNotFound, "unsupported_protocol", "this agent does not support the protocol (see /.wellknown for those it does)")
	ErrRoutinePanicked       = newError(KindInternal, "routine_panicked", "the routine crashed")
)

func (a *Handler) handleTransaction(w http.ResponseWriter, r *http.Request) {
	raw, err := a.readBody(w, r)
	if err != nil {
		writeAnswer(w, rejected(err))
		return
	}
	t, err := DecodeTransaction(raw)
	if err != nil {
		writeAnswer(w, a.refuse(t, rejected(err)))
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), a.cfg.Limits.RequestTimeout)
	defer cancel()
	writeAnswer(w, a.Answer(ctx, t))
}

func (a *Handler) handleFollowUp(w http.ResponseWriter, r *http.Request) {
	conv, err := a.lookupConversation(r.PathValue("id"))
	if err != nil {
		writeAnswer(w, conversationGone(err))
		return
	}
	raw, err := a.readBody(w, r)
	if err != nil {
		writeAnswer(w, rejected(err))
		return
	}
	f, err := DecodeFollowUp(raw)
	if err == nil {
		err = conv.protocol.sameProtocol(f.ProtocolHash)
	}
	if err != nil {
		writeAnswer(w, rejected(err))
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), a.cfg.Limits.RequestTimeout)
	defer cancel()
	writeAnswer(w, a.turn(ctx, conv, f.Body))
}

func (a *Handler) handleEnd(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	// A conversation closed at birth has nothing left to end.
	if !isClosedConversationID(id) {
		if err := a.convs.End(id); err != nil {
			writeAnswer(w, conversationGone(err))
			return
		}
	}
	writeAnswer(w, Answer{Status: StatusSuccess, Body: "", ConversationID: id})
}

func (a *Handler) lookupConversation(id string) (*conversation, error) {
	if isClosedConversationID(id) {
		return nil, ErrConversationClosed
	}
	return a.convs.Get(id)
}

// conversationGone answers for a conversation that is not open: an expired
// one is a failure ("Conversation expired", spec v0.2), the rest rejected.
func conversationGone(err error) Answer {
	if errors.Is(err, ErrConversationExpired) {
		return failure(err)
	}
	return rejected(err)
}

// readBody reads a request body up to the configured limit.
func (a *Handler) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	max := a.cfg.Limits.MaxRequestBytes
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, int64(max)))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return nil, ErrTooLarge.With(fmt.Sprintf("the request exceeds the limit of %d bytes", max))
	}
	if err != nil {
		return nil, ErrMalformedJSON.With("the request body could not be read")
	}
	return raw, nil
}

// Answer answers one decoded transaction, as POST / does (without the
// per-client limits, which need the HTTP request).
func (a *Handler) Answer(ctx context.Context, t Transaction) Answer {
	req, rt, refusal := a.prepare(ctx, t)
	if refusal != nil {
		return a.refuse(t, *refusal)
	}
	if !t.Multiround {
		return a.run(ctx, rt, req)
	}
	conv, err := a.convs.Open(clientOf(ctx), req, rt)
	if err != nil {
		return a.refuse(t, failure(err))
	}
	conv.protocol = t.protocolRef() // before its id is known to anyone
	return a.turn(ctx, conv, t.Body)
}

// refuse answers a refused request; a multi-round one gets the id of a
// conversation that is already closed, since the SDK's sender gives up on
// a first multi-round reply without conversationId.
func (a *Handler) refuse(t Transaction, ans Answer) Answer {
	if !t.Multiround {
		return ans
	}
	return closedAnswer(ans, a.convs.now())
}

// prepare picks the routine and obtains the protocol document, or returns
// the answer that refuses the request. Explicitly unsupported protocols, and
// protocols nothing here could answer, are refused before anything is
// fetched.
func (a *Handler) prepare(ctx context.Context, t Transaction) (Request, Routine, *Answer) {
	req := Request{Body: t.Body, Negotiation: t.Negotiation}
	refuse := func(ans Answer) (Request, Routine, *Answer) { return req, nil, &ans }
	switch {
	case t.Natural:
		if a.llm == nil {
			return refuse(failure(ErrNoLLM.With("no LLM configured: this agent cannot answer natural-language requests (protocolHash null); use a protocol listed at /.wellknown")))
		}
		return req, a.llm, nil
	case t.Negotiation:
		if a.llm == nil {
			return refuse(failure(ErrNoLLM.With("no LLM configured: this agent cannot negotiate protocols; use a protocol listed at /.wellknown")))
		}
		req.Agent = a.agentDescription()
		return req, a.llm, nil
	}
	registered, refused := a.routineFor(t.Hash)
	if refused {
		return refuse(rejected(ErrExplicitlyUnsupported.With(fmt.Sprintf("protocol %s is explicitly unsupported by this agent", t.Hash.Hex()))))
	}
	var rt Routine
	resolve := a.resolver.Resolve
	negotiated := false
	if registered != nil {
		rt = registered
	} else if a.llm != nil {
		// Anyone can mint new hashes: their documents are not cached,
		// unless the sender just negotiated here (negotiated.go).
		rt, resolve = a.llm, a.resolver.ResolveTransient
		if negotiated = a.adoptsNegotiated(clientOf(ctx)); negotiated {
			resolve = a.resolver.Resolve
		}
	} else {
		return refuse(rejected(ErrUnsupported.With(fmt.Sprintf("protocol %s is not supported by this agent and no LLM is configured to read it", t.Hash.Hex()))))
	}
	doc, err := resolve(ctx, t.Hash, t.Sources)
	if err != nil {
		return refuse(rejected(err))
	}
	a.log.Debug("protocol resolved", "hash", t.Hash.Hex(), "origin", doc.Origin)
	if negotiated {
		a.adopt(clientOf(ctx), t.Hash, doc, t.Sources)
	}
	req.Document = doc.Document
	return req, rt, nil
}

// turn answers one round of a conversation and records it.
func (a *Handler) turn(ctx context.Context, conv *conversation, body string) Answer {
	conv.turnMu.Lock()
	defer conv.turnMu.Unlock()
	req := conv.request
	req.Body = body
	ans := a.run(ctx, conv.routine, req)
	if ans.Status == StatusSuccess && conv.protocol.negotiation {
		a.negotiators.record(conv.client, a.convs.now())
	}
	if ans.Status == StatusSuccess {
		if dropped := a.convs.record(conv, body, ans.Body); dropped > 0 {
			a.log.Debug("conversation history trimmed to its budget", "conversation", conv.ID, "turns_dropped", dropped)
		}
	}
	ans.ConversationID = conv.ID
	ans.ConversationExpires = a.convs.touch(conv).Unix()
	return ans
}

// run calls a routine; any error, or a panic, is a failure.
func (a *Handler) run(ctx context.Context, rt Routine, req Request) (ans Answer) {
	defer func() {
		if p := recover(); p != nil {
			a.log.Error("routine panicked", "panic", fmt.Sprint(p))
			ans = failure(ErrRoutinePanicked)
		}
	}()
	out, err := rt.Answer(ctx, req)
	if err != nil {
		a.log.Info("routine failed", "err", err)
		return failure(err)
	}
	return success(out)
}
