package agent

import (
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"

	"github.com/agora-registry/registry/internal/agent/routine"
	"github.com/agora-registry/registry/internal/apperr"
)

// Conversation errors.
var (
	ErrUnknownConversation = apperr.New(apperr.NotFound, "unknown_conversation", "no such conversation (it never existed, was ended, or expired)")
	ErrTooManyConvs        = apperr.New(apperr.RateLimited, "too_many_conversations", "too many open conversations; try again later")
)

// Conversation is one multi-round exchange: the routine chosen when it was
// opened and the turns so far.
type Conversation struct {
	ID       string
	request  routine.Request // protocol context; Body and History change per turn
	routine  routine.Routine
	protocol protocolRef // follow-ups must not change it
	turnMu   sync.Mutex  // one turn at a time, so history stays in order
	lastUsed time.Time   // guarded by Conversations.mu
}

// Conversations holds open conversations in memory with idle expiry and a
// cap on their number.
type Conversations struct {
	mu       sync.Mutex
	byID     map[string]*Conversation
	max      int
	idle     time.Duration
	maxTurns int
	expired  expiredIDs // recently expired ids, for a clear answer
	now      func() time.Time
}

// NewConversations returns an empty store.
func NewConversations(max int, idle time.Duration, maxTurns int) *Conversations {
	return &Conversations{byID: map[string]*Conversation{}, max: max, idle: idle, maxTurns: maxTurns,
		expired: expiredIDs{max: max}, now: time.Now}
}

// Open starts a conversation.
func (s *Conversations) Open(req routine.Request, r routine.Routine) (*Conversation, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	c := &Conversation{ID: hex.EncodeToString(b[:]), request: req, routine: r}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweepLocked()
	if len(s.byID) >= s.max {
		return nil, ErrTooManyConvs
	}
	c.lastUsed = s.now()
	s.byID[c.ID] = c
	return c, nil
}

// Get returns a live conversation and marks it used.
func (s *Conversations) Get(id string) (*Conversation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.byID[id]
	if !ok {
		return nil, s.goneLocked(id)
	}
	if s.expiredLocked(c) {
		s.expireLocked(c)
		return nil, ErrConversationExpired
	}
	c.lastUsed = s.now()
	return c, nil
}

// End removes a conversation.
func (s *Conversations) End(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.byID[id]
	if !ok {
		return s.goneLocked(id)
	}
	if s.expiredLocked(c) {
		s.expireLocked(c)
		return ErrConversationExpired
	}
	delete(s.byID, id)
	return nil
}

// touch marks a conversation used now and returns when it will expire.
func (s *Conversations) touch(c *Conversation) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	c.lastUsed = s.now()
	return c.lastUsed.Add(s.idle)
}

// goneLocked explains an id that is not open.
func (s *Conversations) goneLocked(id string) error {
	if s.expired.has(id, s.now(), s.idle) {
		return ErrConversationExpired
	}
	return ErrUnknownConversation
}

func (s *Conversations) expireLocked(c *Conversation) {
	delete(s.byID, c.ID)
	s.expired.add(c.ID, s.now())
}

// Len counts conversations, expired ones included until swept.
func (s *Conversations) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.byID)
}

func (s *Conversations) expiredLocked(c *Conversation) bool {
	return s.now().Sub(c.lastUsed) > s.idle
}

func (s *Conversations) sweepLocked() {
	for _, c := range s.byID {
		if s.expiredLocked(c) {
			s.expireLocked(c)
		}
	}
}

// record appends a turn, keeping at most maxTurns. Callers hold turnMu.
func (s *Conversations) record(c *Conversation, body, answer string) {
	h := append(c.request.History, routine.Turn{Request: body, Answer: answer})
	if len(h) > s.maxTurns {
		h = append([]routine.Turn(nil), h[len(h)-s.maxTurns:]...)
	}
	c.request.History = h
}
