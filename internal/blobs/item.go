package blobs

import (
	"errors"

	"github.com/agora-registry/registry/internal/protocol"
)

// Item is one blob of a batch (PutBatch).
type Item struct {
	Digest  protocol.Digest
	Content []byte
}

// ErrTooLarge tells ReadSmall's caller to Open the file and send it with
// sendfile instead.
var ErrTooLarge = errors.New("blob larger than the buffer")
