//go:build unix

package regularfile

import "syscall"

// Flags are added to every open: O_NONBLOCK returns at once from the open
// of a FIFO (regular files ignore it). NoFollowFlags also fail the open of
// a symbolic link (O_NOFOLLOW).
const (
	Flags         = syscall.O_NONBLOCK
	NoFollowFlags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
)
