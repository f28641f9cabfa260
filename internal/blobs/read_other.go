//go:build !linux

package blobs

import (
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"

	"github.com/agora-registry/registry/internal/regularfile"
)

// readRegular reads the regular file at path whole and returns its stamp
// (without blocking on a FIFO; anything but a regular file is
// ErrNotRegular).
func readRegular(path string) ([]byte, uint64, error) {
	f, fi, err := regularfile.Open(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	if fi.Size() > math.MaxUint32 {
		return nil, 0, fmt.Errorf("blobs: %s is larger than 4 GiB", path)
	}
	b := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, b); err != nil {
		return nil, 0, err
	}
	return b, stamp(fi), nil
}

func stamp(fi fs.FileInfo) uint64 {
	return stampOf(fi.Size(), fi.ModTime().UnixNano(), inode(fi))
}
