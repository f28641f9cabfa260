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
	ErrClientConvQuota     = apperr.New(apperr.RateLimited, "client_conversation_quota", "your address has too many open conversations; end one (DELETE /conversations/{id}) or wait for one to expire")
	ErrConvMemoryFull      = apperr.New(apperr.RateLimited, "conversation_memory_full", "the agent's memory for conversations is full; try again later")
)

// Conversation is one multi-round exchange: the routine chosen when it was
// opened and the turns so far.
type Conversation struct {
	ID       string
	request  routine.Request // protocol context; History changes per turn
	routine  routine.Routine
	protocol protocolRef // follow-ups must not change it
	turnMu   sync.Mutex  // one turn at a time, so history stays in order
	lastUsed time.Time   // guarded by Conversations.mu
	client   string      // who opened it, for the per-client quota
	bytes    int         // document and history held, guarded by Conversations.mu
}

// Conversations holds open conversations in memory with idle expiry, a
// cap on their number in all and per client, and a byte budget
// (conversation_budget.go).
type Conversations struct {
	mu       sync.Mutex
	byID     map[string]*Conversation
	limits   ConversationLimits
	bytes    int            // held by all conversations
	byClient map[string]int // open conversations per client
	expired  expiredIDs     // recently expired ids, for a clear answer
	now      func() time.Time
}

// NewConversations returns an empty store; zero limits take the defaults.
func NewConversations(l ConversationLimits) *Conversations {
	l = l.withDefaults()
	return &Conversations{byID: map[string]*Conversation{}, byClient: map[string]int{},
		limits: l, expired: expiredIDs{max: l.Max}, now: time.Now}
}

// Open starts a conversation for client (see clientKey).
func (s *Conversations) Open(client string, req routine.Request, r routine.Routine) (*Conversation, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	req.Body = "" // each turn brings its own; keeping the first would hold it for good
	c := &Conversation{ID: hex.EncodeToString(b[:]), request: req, routine: r, client: client}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweepLocked()
	if len(s.byID) >= s.limits.Max {
		return nil, ErrTooManyConvs
	}
	if err := s.admitLocked(c); err != nil {
		return nil, err
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
	s.removeLocked(c)
	return nil
}

// touch marks a conversation used now and returns when it will expire.
func (s *Conversations) touch(c *Conversation) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	c.lastUsed = s.now()
	return c.lastUsed.Add(s.limits.IdleExpiry)
}

// goneLocked explains an id that is not open.
func (s *Conversations) goneLocked(id string) error {
	if s.expired.has(id, s.now(), s.limits.IdleExpiry) {
		return ErrConversationExpired
	}
	return ErrUnknownConversation
}

// expireLocked forgets an expired conversation, remembering its id.
func (s *Conversations) expireLocked(c *Conversation) {
	s.removeLocked(c)
	s.expired.add(c.ID, s.now())
}

// Len counts conversations, expired ones included until swept.
func (s *Conversations) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.byID)
}

func (s *Conversations) expiredLocked(c *Conversation) bool {
	return s.now().Sub(c.lastUsed) > s.limits.IdleExpiry
}

func (s *Conversations) sweepLocked() {
	for _, c := range s.byID {
		if s.expiredLocked(c) {
			s.expireLocked(c)
		}
	}
}
