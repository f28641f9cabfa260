//go:build unix

package archive

import "syscall"

// noFollowFlags: O_NOFOLLOW fails the open of a symbolic link; O_NONBLOCK
// returns at once from the open of a FIFO (regular files ignore it).
const noFollowFlags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
