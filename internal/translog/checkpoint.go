package translog

import (
	"golang.org/x/mod/sumdb/note"

	"github.com/agora-registry/registry/agora"
)

// ErrBadCheckpoint refuses a checkpoint that does not verify or parse.
var ErrBadCheckpoint = agora.ErrBadLogCheckpoint

// Checkpoint is a tree head of a named log.
type Checkpoint = agora.LogCheckpoint

// SignCheckpoint signs a checkpoint as a note.
func SignCheckpoint(c Checkpoint, s note.Signer) ([]byte, error) {
	return note.Sign(&note.Note{Text: c.Body()}, s)
}

// OpenCheckpoint verifies a signed checkpoint with v and parses it; the
// origin line must be the verifier's name.
func OpenCheckpoint(msg []byte, v note.Verifier) (Checkpoint, error) {
	return agora.OpenLogCheckpoint(msg, v)
}

// ParseCheckpoint reads a checkpoint body (extension lines are ignored).
func ParseCheckpoint(text string) (Checkpoint, error) { return agora.ParseLogCheckpoint(text) }
