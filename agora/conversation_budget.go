package agora

import (
	"fmt"
)

// The byte budget of multi-round state. A conversation holds its protocol
// document and its history; their sum, over all conversations, never
// exceeds limits.MaxTotalBytes, and one conversation's history never
// exceeds limits.MaxHistoryBytes (nor limits.MaxTurns turns): the oldest
// turns are dropped to make room for the newest. So what conversations hold
// is at most MaxTotalBytes whatever senders do, and one client, with at most
// PerClient conversations, holds at most PerClient × (document limit +
// MaxHistoryBytes) of it.

// admitLocked charges a new conversation's document to the budget, or
// refuses it when its client is at its quota or the budget is spent.
func (s *conversations) admitLocked(c *conversation) error {
	if s.byClient[c.client] >= s.limits.PerClient {
		return ErrClientConvQuota.With(fmt.Sprintf("your address has %d open conversations, the most one client may have; end one (DELETE /conversations/{id}) or wait %s for one to expire",
			s.limits.PerClient, s.limits.IdleExpiry))
	}
	doc := c.fixedBytes()
	if s.bytes+doc > s.limits.MaxTotalBytes {
		return ErrConvMemoryFull
	}
	c.bytes = doc
	s.bytes += doc
	s.byClient[c.client]++
	return nil
}

// removeLocked forgets a conversation and releases what it held.
func (s *conversations) removeLocked(c *conversation) {
	if s.byID[c.ID] != c {
		return
	}
	delete(s.byID, c.ID)
	s.bytes -= c.bytes
	c.bytes = 0
	if s.byClient[c.client]--; s.byClient[c.client] <= 0 {
		delete(s.byClient, c.client)
	}
}

// record appends a turn to the history, then drops the oldest turns until
// the history fits its turn limit, its byte limit and what the total budget
// leaves it. A turn too large on its own is not kept. Callers hold turnMu.
// It reports how many turns were dropped.
func (s *conversations) record(c *conversation, body, answer string) (dropped int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byID[c.ID] != c {
		return 0 // ended or expired while the turn ran: nothing to keep
	}
	h := append(c.request.History, Turn{Request: body, Answer: answer})
	doc := c.fixedBytes()
	room := min(s.limits.MaxHistoryBytes, s.limits.MaxTotalBytes-(s.bytes-c.bytes)-doc)
	kept, size := 0, 0
	for i := len(h) - 1; i >= 0 && kept < s.limits.MaxTurns; i-- {
		n := turnBytes(h[i])
		if size+n > room {
			break
		}
		kept++
		size += n
	}
	dropped = len(h) - kept
	if dropped > 0 {
		// A fresh array, so the dropped turns' strings can be collected.
		h = append([]Turn(nil), h[dropped:]...)
	}
	c.request.History = h
	s.bytes += doc + size - c.bytes
	c.bytes = doc + size
	return dropped
}

// fixedBytes is what a conversation holds whatever its history: the
// protocol document, or the agent's description for a negotiation.
func (c *conversation) fixedBytes() int { return len(c.request.Document) + len(c.request.Agent) }

func turnBytes(t Turn) int { return len(t.Request) + len(t.Answer) }

// Bytes is what all open conversations hold (documents and histories).
func (s *conversations) Bytes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bytes
}
