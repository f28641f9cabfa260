package agora

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
	"time"
)

// How a conversation can be over without being unknown: it expired, or it
// was closed by the refusal that answered its first request.
var (
	ErrConversationExpired = newError(KindGone, "conversation_expired", "Conversation expired: it was idle too long; start a new one")
	ErrConversationClosed  = newError(KindGone, "conversation_closed", "conversation closed: its first request was refused; start a new one with a protocol this agent supports")
)

// closedPrefix marks the id of a conversation closed at birth. The SDK
// insists on a conversationId in the first multi-round reply, refusals
// included; such ids are recognised by their shape, so refusals cost no
// state (a made-up "closed-…" id only hears "conversation closed").
const closedPrefix = "closed-"

func closedConversationID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand never fails on supported platforms
	return closedPrefix + hex.EncodeToString(b[:])
}

func isClosedConversationID(id string) bool { return strings.HasPrefix(id, closedPrefix) }

// closedAnswer gives a refusal of a multi-round request the conversationId
// the SDK requires, of a conversation that is already over.
func closedAnswer(refusal Answer, now time.Time) Answer {
	refusal.ConversationID = closedConversationID()
	refusal.ConversationExpires = now.Unix()
	return refusal
}

// expiredIDs remembers recently expired conversation ids, so a late
// follow-up hears "Conversation expired" rather than "no such
// conversation". It holds at most max ids, oldest dropped first: a flood
// of expiries only shortens how long the clearer message is given.
type expiredIDs struct {
	at    map[string]time.Time
	order []string // insertion order, for dropping the oldest
	max   int
}

func (e *expiredIDs) add(id string, when time.Time) {
	if e.max <= 0 {
		return
	}
	if e.at == nil {
		e.at = map[string]time.Time{}
	}
	if _, ok := e.at[id]; ok {
		return
	}
	for len(e.order) >= e.max {
		delete(e.at, e.order[0])
		e.order = e.order[1:]
	}
	e.at[id] = when
	e.order = append(e.order, id)
}

// has reports whether id expired within keep of now.
func (e *expiredIDs) has(id string, now time.Time, keep time.Duration) bool {
	when, ok := e.at[id]
	return ok && now.Sub(when) <= keep
}
