//go:build !linux

package blobs

import "github.com/agora-registry/registry/internal/protocol"

// Small is a blob read whole into the caller's buffer.
type Small struct {
	Content []byte
	Hits    uint32
}

// ReadSmall always defers to Open outside Linux.
func (s *Store) ReadSmall(protocol.Digest, []byte) (Small, error) { return Small{}, ErrTooLarge }
