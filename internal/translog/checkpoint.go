package translog

import (
	"golang.org/x/mod/sumdb/note"

	"github.com/agora-registry/registry/agora"
)

// SignCheckpoint signs a checkpoint as a note.
func SignCheckpoint(c agora.LogCheckpoint, s note.Signer) ([]byte, error) {
	return note.Sign(&note.Note{Text: c.Body()}, s)
}
