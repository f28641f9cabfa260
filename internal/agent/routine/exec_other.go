//go:build !unix

package routine

import (
	"context"
	"time"
)

// DefaultExecTimeout and DefaultMaxOutput mirror the Unix build.
const (
	DefaultExecTimeout = 10 * time.Second
	DefaultMaxOutput   = 1 << 20
)

// Exec is only available on Unix, where the process group can be killed.
type Exec struct {
	Command   string
	Args      []string
	Dir       string
	Env       []string
	Timeout   time.Duration
	MaxOutput int
}

// Answer always fails on this platform.
func (e *Exec) Answer(context.Context, Request) (string, error) {
	return "", ErrCrashed.With("exec routines need a Unix system")
}
