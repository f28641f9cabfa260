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
	"github.com/agora-registry/registry/internal/store"
)

// ImportDir loads every .md file under dir (recursively) into docs,
// idempotently, with origin ImportOrigin. Other files are ignored; symbolic
// links to files are followed, links to directories are not (no loops).
func ImportDir(ctx context.Context, docs store.Documents, dir string, lim Limits) (Report, error) {
	lim = lim.withDefaults()
	p := newPipeline(ctx, docs, lim)
	files := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, walkErr error) error {
		if p.ctx.Err() != nil {
			return context.Cause(p.ctx)
		}
		if walkErr != nil {
			if path == dir {
				return walkErr
			}
			if err := p.fail(path, walkErr); err != nil {
				return err
			}
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() || !strings.EqualFold(filepath.Ext(path), ".md") {
			return nil
		}
		files++
		if files > lim.MaxEntries {
			return ErrArchiveTooLarge.With(fmt.Sprintf("the directory holds more than %d .md files; import stopped", lim.MaxEntries))
		}
		return p.addFile(path, path)
	})
	rep, perr := p.finish()
	if err == nil {
		err = perr
	}
	return rep, err
}

// readDocumentFile reads one file, refusing what is not a regular file or
// is larger than the document limit before reading it whole.
func readDocumentFile(path string, maxBytes int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, ErrEntryType.With("not a regular file")
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
// path is.
func ImportPath(ctx context.Context, docs store.Documents, path string, lim Limits) (Report, error) {
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
