package archive

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/regularfile"
)

// ImportDir loads every .md file under dir (recursively) into docs,
// idempotently, with origin ImportOrigin. Other regular files are ignored.
// Nothing outside dir is ever read: the walk and every open go through an
// os.Root, symbolic links are refused (never followed, not even to a file
// inside dir), and so is every entry that is neither a directory nor a
// regular file (FIFOs, sockets, devices), each with its own report line.
func ImportDir(ctx context.Context, docs Target, dir string, lim Limits) (Report, error) {
	lim = lim.withDefaults()
	root, err := os.OpenRoot(dir)
	if err != nil {
		return Report{}, err
	}
	defer root.Close()
	p := newPipeline(ctx, docs, lim)
	files := 0
	err = fs.WalkDir(root.FS(), ".", func(rel string, d fs.DirEntry, walkErr error) error {
		if p.ctx.Err() != nil {
			return context.Cause(p.ctx)
		}
		name := filepath.Join(dir, filepath.FromSlash(rel))
		if walkErr != nil {
			if rel == "." {
				return walkErr
			}
			if err := p.fail(name, walkErr); err != nil {
				return err
			}
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		switch {
		case d.IsDir():
			return nil
		case !d.Type().IsRegular():
			return p.fail(name, notRegular(d.Type()))
		case !strings.EqualFold(filepath.Ext(rel), ".md"):
			return nil
		}
		files++
		if files > lim.MaxEntries {
			return ErrArchiveTooLarge.With(fmt.Sprintf("the directory holds more than %d .md files; import stopped", lim.MaxEntries))
		}
		return p.addFile(name, root, rel)
	})
	rep, perr := p.finish()
	if err == nil {
		err = perr
	}
	return rep, err
}

// notRegular explains why a directory entry is not imported.
func notRegular(mode fs.FileMode) error {
	if mode&fs.ModeSymlink != 0 {
		return ErrEntryType.With("a symbolic link: refused (import reads only regular files inside the directory, and never follows links)")
	}
	return ErrEntryType.With(fmt.Sprintf("not a regular file (%s): refused", regularfile.Kind(mode)))
}

// readDocumentFile reads one file of root, refusing a link or anything but
// a regular file (the entry may have been replaced since the walk saw it)
// and what is larger than the document limit, before reading it whole.
func readDocumentFile(root *os.Root, name string, maxBytes int) ([]byte, error) {
	info, err := root.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, notRegular(info.Mode())
	}
	// NoFollowFlags refuse a link swapped in after the Lstat and keep a FIFO
	// swapped in from blocking the open; the Stat below then refuses it.
	f, err := root.OpenFile(name, os.O_RDONLY|regularfile.NoFollowFlags, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err = f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, notRegular(info.Mode())
	}
	if info.Size() > int64(maxBytes) {
		return nil, protocol.ErrDocumentTooLarge.With(fmt.Sprintf("the document is %d bytes; the limit is %d", info.Size(), maxBytes))
	}
	// The file may grow after Stat; read one byte past the limit so that
	// Prepare still sees it as too large. Sized from Stat, the buffer is
	// allocated once (io.ReadAll grows from 512 bytes, copying each time).
	buf := bytes.NewBuffer(make([]byte, 0, info.Size()+bytes.MinRead))
	_, err = buf.ReadFrom(io.LimitReader(f, int64(maxBytes)+1))
	return buf.Bytes(), err
}

// ImportPath imports a directory of .md files or an archive file, whichever
// path is. The path itself is the operator's choice and may be a link.
func ImportPath(ctx context.Context, docs Target, path string, lim Limits) (Report, error) {
	info, err := os.Stat(path)
	if err != nil {
		return Report{}, err
	}
	if info.IsDir() {
		return ImportDir(ctx, docs, path, lim)
	}
	f, err := os.Open(path)
	if err != nil {
		return Report{}, err
	}
	defer f.Close()
	return ImportArchive(ctx, docs, f, lim)
}
