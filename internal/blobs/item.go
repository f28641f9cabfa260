package blobs

import "github.com/agora-registry/registry/internal/protocol"

// Item is one blob of a batch (PutBatch).
type Item struct {
	Digest  protocol.Digest
	Content []byte
}
