package agora

import (
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"
)

// Conversation errors.
var (
	ErrUnknownConversation = newError(KindNotFound, "unknown_conversation", "no such conversation (it never existed, was ended, or expired)")
	ErrTooManyConvs        = newError(KindRateLimited, "too_many_conversations", "too many open conversations; try again later")
	ErrClientConvQuota     = newError(KindRateLimited, "client_conversation_quota", "your address has too many open conversations; end one (DELETE /conversations/{id}) or wait for one to expire")
	ErrConvMemoryFull      = newError(KindRateLimited, "conversation_memory_full", "the agent's memory for conversations is full; try again later")
)

// Conversation is one multi-round exchange: the routine chosen when it was
// opened and the turns so far.
type conversation struct {
	ID       string
	request  Request // protocol context; History changes per turn
	routine  Routine
	protocol protocolRef // follow-ups must not change it
	turnMu   sync.Mutex  // one turn at a time, so history stays in order
	lastUsed time.Time   // guarded by conversations.mu
	client   string      // who opened it, for the per-client quota
	bytes    int         // document and history held, guarded by conversations.mu
}

// Conversations holds open conversations in memory with idle expiry, a
// cap on their number in all and per client, and a byte budget
// (conversation_budget.go).
type conversations struct {
	mu       sync.Mutex
	byID     map[string]*conversation
	limits   ConversationLimits
	bytes    int            // held by all conversations
	byClient map[string]int // open conversations per client
	expired  expiredIDs     // recently expired ids, for a clear answer
	now      func() time.Time
}

// newConversations returns an empty store; zero limits take the defaults.
func newConversations(l ConversationLimits) *conversations {
	l = l.withDefaults()
	return &conversations{byID: map[string]*conversation{}, byClient: map[string]int{},
		limits: l, expired: expiredIDs{max: l.Max}, now: time.Now}
}

// Open starts a conversation for client (see clientKey).
func (s *conversations) Open(client string, req Request, r Routine) (*conversation, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	req.Body = "" // each turn brings its own; keeping the first would hold it for good
	c := &conversation{ID: hex.EncodeToString(b[:]), request: req, routine: r, client: client}
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
func (s *conversations) Get(id string) (*conversation, error) {
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
func (s *conversations) End(id string) error {
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
func (s *conversations) touch(c *conversation) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	c.lastUsed = s.now()
	return c.lastUsed.Add(s.limits.IdleExpiry)
}

// goneLocked explains an id that is not open.
func (s *conversations) goneLocked(id string) error {
	if s.expired.has(id, s.now(), s.limits.IdleExpiry) {
		return ErrConversationExpired
	}
	return ErrUnknownConversation
}

// expireLocked forgets an expired conversation, remembering its id.
func (s *conversations) expireLocked(c *conversation) {
	s.removeLocked(c)
	s.expired.add(c.ID, s.now())
}

// Len counts conversations, expired ones included until swept.
func (s *conversations) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.byID)
}

func (s *conversations) expiredLocked(c *conversation) bool {
	return s.now().Sub(c.lastUsed) > s.limits.IdleExpiry
}

func (s *conversations) sweepLocked() {
	for _, c := range s.byID {
		if s.expiredLocked(c) {
			s.expireLocked(c)
		}
	}
}
