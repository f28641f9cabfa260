package translog

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// State is what `registry verify` remembers of a log between runs: its
// verifier key and the largest checkpoint it verified.
type State struct {
	VerifierKey string `json:"verifierKey"`
	Checkpoint  string `json:"checkpoint"` // the signed note
}

// maxStateBytes bounds a state file (a key and one checkpoint).
const maxStateBytes = 64 << 10

// LoadState reads a state file; a missing one is the zero State.
func LoadState(path string) (State, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return State{}, nil
	}
	if err != nil {
		return State{}, err
	}
	if len(b) > maxStateBytes {
		return State{}, fmt.Errorf("the state file %s is larger than %d bytes", path, maxStateBytes)
	}
	var s State
	if err := json.Unmarshal(b, &s); err != nil {
		return State{}, fmt.Errorf("the state file %s is not valid: %w", path, err)
	}
	return s, nil
}

// Save writes the state file atomically (a crash leaves the old one).
func (s State) Save(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".verify-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
