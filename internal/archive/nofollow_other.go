//go:build !unix

package archive

// noFollowFlags is empty where the flags do not exist; the Lstat before
// the open and the Stat after it still refuse links and special files.
const noFollowFlags = 0
