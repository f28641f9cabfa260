//go:build !unix

package regularfile

// Flags and NoFollowFlags are empty where the flags do not exist; the
// check after the open (and an Lstat before it) still refuse special
// files and links.
const (
	Flags         = 0
	NoFollowFlags = 0
)
