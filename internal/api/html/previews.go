package html

import "sync"

// previewSlots lets each client (by address) prepare one preview at a
// time. It holds only the previews in progress, so it is bounded by the
// server's connections.
type previewSlots struct {
	mu   sync.Mutex
	busy map[string]struct{}
}

func newPreviewSlots() *previewSlots { return &previewSlots{busy: map[string]struct{}{}} }

// take claims the client's slot, or reports that a preview of theirs is
// already in progress.
func (s *previewSlots) take(client string) (release func(), ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, held := s.busy[client]; held {
		return nil, false
	}
	s.busy[client] = struct{}{}
	return func() {
		s.mu.Lock()
		delete(s.busy, client)
		s.mu.Unlock()
	}, true
}
