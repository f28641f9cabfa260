package agora

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Negotiation defaults.
const (
	// DefaultNegotiationRounds is the SDK's SenderNegotiator bound: how many
	// messages the sender's model may write before giving up.
	DefaultNegotiationRounds = 10
	// DefaultMaxTranscriptBytes bounds what a negotiation holds and sends
	// to the model again each round (its transcript).
	DefaultMaxTranscriptBytes = 256 << 10
)

// Negotiation errors, with stable codes.
var (
	ErrNegotiationRefused = newError(KindUnavailable, "negotiation_refused", "the target did not open a negotiation")
	ErrNotConverged       = newError(KindUnavailable, "negotiation_not_converged", "no protocol was agreed within the round limit")
	ErrTranscriptTooLarge = newError(KindTooLarge, "negotiation_too_long", "the negotiation's transcript exceeds its byte limit")
)

// Negotiator negotiates a protocol with a target agent the way the SDK's
// SenderNegotiator does: its model, prompted with the SDK's rules and the
// task's schema, answers the opening "Hello! How may I help you?", and each
// of its messages goes to the target over a "negotiation" conversation
// until the model writes the final protocol between <FINALPROTOCOL> tags.
type Negotiator struct {
	LLM    Completer
	Client *http.Client // nil means http.DefaultClient
	// MaxRounds bounds the model's messages; 0 means DefaultNegotiationRounds.
	MaxRounds int
	// MaxTranscriptBytes bounds the transcript; 0 means DefaultMaxTranscriptBytes.
	MaxTranscriptBytes int
	// AdditionalInfo is appended to the prompt, as the SDK's additional_info.
	AdditionalInfo string
}

// Negotiated is an agreed protocol.
type Negotiated struct {
	Document []byte
	Digest   Digest
	Meta     ProtocolMeta
	Rounds   int // messages the sender's model wrote
}

// Negotiate runs one negotiation with target. The conversation is ended
// (DELETE) whatever the outcome. An error is ErrNegotiationRefused when the
// target does not answer the opening with success, ErrNotConverged when no
// final protocol comes within MaxRounds, ErrTranscriptTooLarge, or the
// model's or the network's error.
func (n *Negotiator) Negotiate(ctx context.Context, target string, task TaskSchema) (Negotiated, error) {
	if n.LLM == nil {
		return Negotiated{}, ErrNoLLM.With("negotiating needs an LLM")
	}
	client := n.Client
	if client == nil {
		client = http.DefaultClient
	}
	rounds := n.MaxRounds
	if rounds <= 0 {
		rounds = DefaultNegotiationRounds
	}
	maxBytes := n.MaxTranscriptBytes
	if maxBytes <= 0 {
		maxBytes = DefaultMaxTranscriptBytes
	}
	msgs := []Message{{Role: "system", Content: senderNegotiationPrompt(task, n.AdditionalInfo)}}
	size := len(msgs[0].Content)
	conversationID := ""
	defer func() {
		if conversationID != "" {
			// Its own deadline, so a cancelled negotiation still says goodbye.
			endCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), endTimeout)
			defer cancel()
			_, _ = End(endCtx, client, target, conversationID)
		}
	}()
	other := NegotiationOpening
	for round := 1; round <= rounds; round++ {
		msgs = append(msgs, Message{Role: "user", Content: other})
		// The target's reply counts before the model sees it, so no call
		// carries more than maxBytes whatever the target sends.
		if size += len(other); size > maxBytes {
			return Negotiated{}, ErrTranscriptTooLarge.With(fmt.Sprintf("the negotiation's transcript passed %d bytes in round %d (the target's message)", maxBytes, round))
		}
		mine, err := n.LLM.Complete(ctx, msgs)
		if err != nil {
			return Negotiated{}, err
		}
		msgs = append(msgs, Message{Role: "assistant", Content: mine})
		if size += len(mine); size > maxBytes {
			return Negotiated{}, ErrTranscriptTooLarge.With(fmt.Sprintf("the negotiation's transcript passed %d bytes after %d rounds", maxBytes, round))
		}
		if doc, ok := ExtractFinalProtocol(mine); ok {
			agreed, err := agreedProtocol(doc, round)
			if err == nil {
				return agreed, nil
			}
			// The model is told what is wrong and may try again.
			other = "The final protocol cannot be used: " + err.Error() + ". Reply with the whole protocol again between " +
				FinalProtocolStart + " and " + FinalProtocolEnd + ", starting with its front matter."
			continue
		}
		reply, err := n.say(ctx, client, target, &conversationID, mine)
		if err != nil {
			return Negotiated{}, err
		}
		other = reply
	}
	return Negotiated{}, ErrNotConverged.With(fmt.Sprintf("no protocol was agreed with %s within %d rounds", RedactURL(target), rounds))
}

// endTimeout bounds the closing DELETE.
const endTimeout = 10 * time.Second

// say sends one message over the negotiation conversation, opening it
// with the first, and returns what the other side's model said (or, as
// the SDK does, the error text, which the model can react to).
func (n *Negotiator) say(ctx context.Context, client *http.Client, target string, conversationID *string, message string) (string, error) {
	if *conversationID == "" {
		hash := Negotiation
		reply, err := Send(ctx, client, target, Outgoing{ProtocolHash: &hash, Body: message, Multiround: true})
		if err != nil {
			return "", err
		}
		if reply.Status != StatusSuccess || reply.ConversationID == "" {
			if reply.ConversationID != "" {
				*conversationID = reply.ConversationID
			}
			return "", ErrNegotiationRefused.With(fmt.Sprintf("%s did not open a negotiation: %s %q", RedactURL(target), reply.Status, clip(replyText(reply))))
		}
		*conversationID = reply.ConversationID
		return reply.Body, nil
	}
	reply, err := Continue(ctx, client, target, *conversationID, message)
	if err != nil {
		return "", err
	}
	if reply.Status != StatusSuccess {
		return "Error interacting with the other party: " + replyText(reply), nil
	}
	return reply.Body, nil
}

func replyText(r Reply) string {
	if r.Error != "" {
		return r.Error
	}
	return r.Body
}

// agreedProtocol checks the extracted document: a valid document with
// front matter the SDK reads.
func agreedProtocol(doc string, round int) (Negotiated, error) {
	raw := []byte(doc)
	if err := Validate(raw, 0); err != nil {
		return Negotiated{}, err
	}
	meta, err := ParseProtocolMeta(raw)
	if err != nil {
		return Negotiated{}, err
	}
	sums, err := Hash(raw)
	if err != nil {
		return Negotiated{}, err
	}
	return Negotiated{Document: raw, Digest: sums.SHA1, Meta: meta, Rounds: round}, nil
}

// PublishAgreed publishes an agreed document to the first of registries
// that accepts it and returns its sources there. Without registries, or
// when none accepts it, the source is a data: URI of the document, and err
// says why each registry refused (the caller may carry on with the URI).
func PublishAgreed(ctx context.Context, doc []byte, registries []*Registry) (sources []string, err error) {
	var errs []error
	for _, reg := range registries {
		p, perr := reg.Publish(ctx, doc)
		if perr == nil && len(p.Sources) > 0 {
			return p.Sources, nil
		}
		if perr == nil {
			perr = fmt.Errorf("the registry gave no sources")
		}
		errs = append(errs, fmt.Errorf("publishing to %s: %w", RedactURL(reg.Origin()), perr))
	}
	return []string{DataURI(doc)}, errors.Join(errs...)
}
