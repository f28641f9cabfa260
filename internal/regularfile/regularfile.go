// Package regularfile opens the files the registry reads from disk (blobs,
// the log's signing key, the SQLite database, imported documents) so that
// a name that is not a regular file can neither block the open (a FIFO
// with no writer blocks open(2) forever, tying up a thread) nor be read as
// data (a device, a socket).
package regularfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// ErrNotRegular is the error of a name that is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// Open opens path with flag (as os.OpenFile) plus Flags, and refuses what
// the open file is not a regular file (fstat on the open file, so a name
// swapped meanwhile is caught too). The error of a refusal wraps
// ErrNotRegular and names what the path is.
func Open(path string, flag int, perm fs.FileMode) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, flag|Flags, perm)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, Kind(fi.Mode()))
	}
	return f, fi, nil
}

// Kind names what a mode's type is, for messages.
func Kind(mode fs.FileMode) string {
	switch {
	case mode.IsRegular():
		return "a regular file"
	case mode.IsDir():
		return "a directory"
	case mode&fs.ModeSymlink != 0:
		return "a symbolic link"
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeDevice != 0:
		return "a device"
	}
	return "mode " + mode.Type().String()
}
