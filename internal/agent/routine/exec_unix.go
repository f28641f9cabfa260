//go:build unix

package routine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Exec limits used when the config leaves them at zero.
const (
	DefaultExecTimeout   = 10 * time.Second
	DefaultMaxOutput     = 1 << 20
	maxStderrInErrorText = 512
)

// Exec runs a command per request: the body on stdin, the answer on stdout.
// A non-zero exit, a timeout or too much output is a failure. The command
// runs in its own process group, and the whole group is killed on timeout,
// so children it spawned cannot outlive it.
type Exec struct {
	Command   string
	Args      []string
	Dir       string
	Env       []string // extra KEY=VALUE pairs; the agent's environment is not passed
	Timeout   time.Duration
	MaxOutput int
}

// Answer implements Routine.
func (e *Exec) Answer(ctx context.Context, req Request) (string, error) {
	timeout := e.Timeout
	if timeout <= 0 {
		timeout = DefaultExecTimeout
	}
	maxOut := e.MaxOutput
	if maxOut <= 0 {
		maxOut = DefaultMaxOutput
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.Command, e.Args...)
	cmd.Dir = e.Dir
	cmd.Env = append([]string{"PATH=/usr/local/bin:/usr/bin:/bin"}, e.Env...)
	cmd.Stdin = strings.NewReader(req.Body)
	stdout := &limitedBuffer{max: maxOut}
	stderr := &limitedBuffer{max: maxStderrInErrorText}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	// After the kill, stop waiting for pipes a grandchild might hold open.
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if cmd.Process != nil {
		// Reap any process left in the group even after a normal exit.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	// The command line and what it printed on stderr are the operator's
	// business: they go to the log, the sender gets the generic message.
	switch {
	case ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return "", ErrTimeout.With(fmt.Sprintf("the routine did not answer within %s and was stopped", timeout))
	case stdout.overflow:
		return "", ErrTooLarge.With(fmt.Sprintf("the routine printed more than %d bytes", maxOut))
	case err != nil:
		detail := fmt.Sprintf("%q: %v", e.Command, err)
		if s := strings.TrimSpace(stderr.String()); s != "" {
			detail += ": " + s
		}
		return "", failed(ErrCrashed, "%s", detail)
	}
	return stdout.String(), nil
}

// limitedBuffer keeps at most max bytes and remembers whether more came.
// It does not embed bytes.Buffer: the promoted ReadFrom would let io.Copy
// bypass the limit.
type limitedBuffer struct {
	buf      bytes.Buffer
	max      int
	overflow bool
}

func (b *limitedBuffer) String() string { return b.buf.String() }

func (b *limitedBuffer) Write(p []byte) (int, error) {
	room := b.max - b.buf.Len()
	if len(p) > room {
		b.overflow = true
		if room > 0 {
			b.buf.Write(p[:room])
		}
		// Report success so the child is not killed by SIGPIPE mid-answer;
		// the overflow is reported after it exits.
		return len(p), nil
	}
	return b.buf.Write(p)
}
