package agora

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// ErrBadLogCheckpoint refuses a checkpoint that does not verify or parse.
var ErrBadLogCheckpoint = newError(KindInvalid, "bad_checkpoint", "the log checkpoint is not a valid signed tree head of this log")

// MaxLogTreeSize is the largest tree a checkpoint may claim: past 2^62
// records tlog's proof math overflows and loops forever (ignoring the
// context), so a signed checkpoint claiming more is refused unread.
const MaxLogTreeSize = 1<<62 - 1

// LogCheckpoint is a tree head of a named log.
type LogCheckpoint struct {
	Origin string
	tlog.Tree
}

// Body is the C2SP tlog-checkpoint text: origin, tree size, base64 root.
func (c LogCheckpoint) Body() string {
	return fmt.Sprintf("%s\n%d\n%s\n", c.Origin, c.N, c.Hash)
}

// OpenLogCheckpoint verifies a signed checkpoint (a note) with v and
// parses it; the origin line must be the verifier's name (the key names
// its log).
func OpenLogCheckpoint(msg []byte, v note.Verifier) (LogCheckpoint, error) {
	n, err := note.Open(msg, note.VerifierList(v))
	if err != nil {
		return LogCheckpoint{}, ErrBadLogCheckpoint.With("the checkpoint's signature does not verify with the log's key: " + err.Error())
	}
	c, err := ParseLogCheckpoint(n.Text)
	if err != nil {
		return LogCheckpoint{}, err
	}
	if c.Origin != v.Name() {
		return LogCheckpoint{}, ErrBadLogCheckpoint.With(fmt.Sprintf("the checkpoint is of log %q, not %q", c.Origin, v.Name()))
	}
	return c, nil
}

// ParseLogCheckpoint reads a checkpoint body (c2sp.org/tlog-checkpoint:
// origin, size without leading zeros, base64 root; extension lines, which
// must not be empty, are ignored).
func ParseLogCheckpoint(text string) (LogCheckpoint, error) {
	lines := strings.SplitN(text, "\n", 4)
	if len(lines) < 4 || lines[0] == "" {
		return LogCheckpoint{}, ErrBadLogCheckpoint.With("the checkpoint has no origin, size and root lines")
	}
	n, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil || n < 0 || strconv.FormatInt(n, 10) != lines[1] {
		return LogCheckpoint{}, ErrBadLogCheckpoint.With("the checkpoint's tree size is not a number")
	}
	if n > MaxLogTreeSize {
		return LogCheckpoint{}, ErrBadLogCheckpoint.With(fmt.Sprintf("the checkpoint claims %d records, more than a log can hold (%d)", n, int64(MaxLogTreeSize)))
	}
	root, err := base64.StdEncoding.DecodeString(lines[2])
	if err != nil || len(root) != tlog.HashSize {
		return LogCheckpoint{}, ErrBadLogCheckpoint.With("the checkpoint's root is not a base64 SHA-256")
	}
	if ext := lines[3]; ext != "" && (!strings.HasSuffix(ext, "\n") || strings.HasPrefix(ext, "\n") || strings.Contains(ext, "\n\n")) {
		return LogCheckpoint{}, ErrBadLogCheckpoint.With("the checkpoint has an empty extension line (c2sp.org/tlog-checkpoint)")
	}
	return LogCheckpoint{Origin: lines[0], Tree: tlog.Tree{N: n, Hash: tlog.Hash(root)}}, nil
}
