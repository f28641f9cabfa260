package archive

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/plural"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// ImportArchive loads an archive (gzip-compressed tar, or a plain tar) into
// docs. It is idempotent, verifies every document against the digest in its
// entry name, and keeps going past bad entries, which the report lists. The
// returned error means the import stopped early (unreadable or oversized
// archive, store down, cancelled); what was read before is stored and the
// report counts it.
func ImportArchive(ctx context.Context, docs Target, r io.Reader, lim Limits) (Report, error) {
	lim = lim.withDefaults()
	stream, err := decompress(r)
	if err != nil {
		return Report{}, err
	}
	budget := &budgetReader{r: stream, left: lim.MaxArchiveBytes}
	ar := archiveReader{
		tr:      tar.NewReader(budget),
		budget:  budget,
		lim:     lim,
		p:       newPipeline(ctx, docs, lim),
		pending: map[protocol.Digest]*Record{},
	}
	readErr := ar.readAll()
	rep, err := ar.p.finish()
	if readErr == nil {
		readErr = err
	}
	if readErr != nil {
		return rep, readErr
	}
	ar.finish(&rep)
	rep.PublishersCreated = ar.publishers
	return rep, nil
}

// decompress recognises gzip by its magic bytes and passes a plain tar
// through.
func decompress(r io.Reader) (io.Reader, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(512)
	switch {
	case len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b:
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, ErrInvalidArchive.With("the archive's gzip header is corrupt: " + err.Error())
		}
		return gz, nil
	case len(head) >= 262 && bytes.Equal(head[257:262], []byte("ustar")):
		return br, nil
	case len(head) == 0:
		return nil, ErrInvalidArchive.With("the archive is empty")
	}
	return nil, ErrInvalidArchive.With("not a registry archive: expected a gzip-compressed tar (.tar.gz)")
}

// budgetReader stops reading after a number of bytes: a small archive may
// decompress to terabytes.
type budgetReader struct {
	r    io.Reader
	left int64
	over bool
}

func (b *budgetReader) Read(p []byte) (int, error) {
	if b.left <= 0 {
		b.over = true
		return 0, ErrArchiveTooLarge
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	return n, err
}

type archiveReader struct {
	tr      *tar.Reader
	budget  *budgetReader
	lim     Limits
	p       *pipeline                   // where entries go, in order
	pending map[protocol.Digest]*Record // records waiting for their document

	entries     int
	documents   int // document entries seen, good or bad
	manifest    *Manifest
	summary     *Summary
	summaryName string
	// accounts are the publishers this import made sure exist
	// (KeepPublishers), by name, with the display names publishers.json gave.
	accounts   map[string]bool
	displayOf  map[string]string
	publishers int // accounts created
}

func (ar *archiveReader) readAll() error {
	for {
		if ar.p.ctx.Err() != nil {
			return context.Cause(ar.p.ctx) // cancelled, or the store failed
		}
		hdr, err := ar.tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return ar.streamError(err)
		}
		ar.entries++
		if ar.entries > ar.lim.MaxEntries {
			return ErrArchiveTooLarge.With(fmt.Sprintf("the archive has more than %d entries; import stopped", ar.lim.MaxEntries))
		}
		if err := ar.entry(hdr); err != nil {
			return err
		}
	}
}

// streamError explains why the tar stream could not be read further.
func (ar *archiveReader) streamError(err error) error {
	if ar.budget.over || errors.Is(err, ErrArchiveTooLarge) {
		return ErrArchiveTooLarge.With(fmt.Sprintf("the archive decompresses to more than %d bytes; import stopped", ar.lim.MaxArchiveBytes))
	}
	return ErrInvalidArchive.With(fmt.Sprintf("the archive is corrupt or cut short after %d entries (%v); the documents before that were imported", ar.entries, err))
}

// fail refuses an entry. A stopped pipeline drops the failure; readAll
// notices the stop at the next entry.
func (ar *archiveReader) fail(name string, err error) {
	_ = ar.p.fail(name, err)
}

func (ar *archiveReader) entry(hdr *tar.Header) error {
	name := hdr.Name
	kind, d := classify(name)
	switch {
	case hdr.Typeflag == tar.TypeXGlobalHeader:
		return nil
	case kind == kindDirectory && hdr.Typeflag == tar.TypeDir:
		return nil
	case kind == kindUnknown:
		ar.fail(name, ErrEntryName.With(fmt.Sprintf(
			"unexpected entry name %q: an archive holds manifest.json, summary.json and documents/<40 hex>.md|.json only", name)))
		return nil
	case hdr.Typeflag != tar.TypeReg:
		ar.fail(name, ErrEntryType.With(fmt.Sprintf("entry %q is not a regular file (tar type %q)", name, hdr.Typeflag)))
		return nil
	}

	switch kind {
	case kindManifest:
		return ar.readManifest(name, hdr)
	case kindPublishers:
		var pubs []PublisherRecord
		if !ar.readJSON(name, hdr, &pubs) || !ar.lim.KeepPublishers {
			return nil
		}
		for _, p := range pubs {
			if ar.displayOf == nil {
				ar.displayOf = map[string]string{}
			}
			ar.displayOf[p.Name] = p.DisplayName
			if err := ar.ensurePublisher(p.Name); err != nil {
				return err
			}
		}
		return nil
	case kindSummary:
		var s Summary
		if ar.readJSON(name, hdr, &s) {
			ar.summary, ar.summaryName = &s, name
		}
		return nil
	case kindRecord:
		var rec Record
		if !ar.readJSON(name, hdr, &rec) {
			return nil
		}
		if err := checkRecord(&rec, d); err != nil {
			ar.fail(name, err)
			return nil
		}
		if ar.lim.KeepPublishers && rec.Publisher != "" {
			if err := ar.ensurePublisher(rec.Publisher); err != nil {
				return err
			}
		}
		if len(ar.pending) >= maxPendingRecords {
			ar.fail(name, ErrInvalidRecord.With("too many records without their document; each documents/<hex>.json must come just before its .md"))
			return nil
		}
		ar.pending[d] = &rec
		return nil
	}

	// kindContent
	ar.documents++
	rec := ar.pending[d]
	delete(ar.pending, d)
	if hdr.Size > int64(ar.lim.MaxDocumentBytes) {
		ar.fail(name, protocol.ErrDocumentTooLarge.With(fmt.Sprintf(
			"the document is %d bytes; the limit is %d", hdr.Size, ar.lim.MaxDocumentBytes)))
		return nil
	}
	// The tar reader yields exactly hdr.Size bytes or an error, so one
	// allocation of that size holds the document.
	content := make([]byte, hdr.Size)
	if _, err := io.ReadFull(ar.tr, content); err != nil {
		return ar.streamError(err)
	}
	return ar.p.addContent(name, content, &d, rec)
}

// maxImportedPublishers bounds the accounts one import may make.
const maxImportedPublishers = 10000

// ensurePublisher makes the account a kept publisher name needs, so the
// imported documents' publisher can be given tokens (registry token
// create --publisher). A name the store refuses is left to the documents'
// own checks; a store failure stops the import.
func (ar *archiveReader) ensurePublisher(name string) error {
	if ar.accounts[name] {
		return nil
	}
	if len(ar.accounts) >= maxImportedPublishers {
		return ErrArchiveTooLarge.With(fmt.Sprintf("the archive names more than %d publishers; import stopped", maxImportedPublishers))
	}
	if ar.accounts == nil {
		ar.accounts = map[string]bool{}
	}
	ar.accounts[name] = true
	p := entity.Publisher{Name: name, DisplayName: ar.displayOf[name]}
	if store.CheckNewPublisher(p) != nil {
		p.DisplayName = ""
		if store.CheckNewPublisher(p) != nil {
			return nil
		}
	}
	_, err := ar.p.docs.CreatePublisher(ar.p.ctx, p)
	switch {
	case err == nil:
		ar.publishers++
	case errors.Is(err, store.ErrPublisherTaken):
	default:
		return err
	}
	return nil
}

func (ar *archiveReader) readManifest(name string, hdr *tar.Header) error {
	if ar.entries != 1 {
		ar.fail(name, ErrEntryName.With("manifest.json must be the first entry; this one is ignored"))
		return nil
	}
	var m Manifest
	if !ar.readJSON(name, hdr, &m) {
		return ErrInvalidArchive.With("the archive's manifest.json is unreadable")
	}
	if m.Format != Format {
		return ErrInvalidArchive.With(fmt.Sprintf("the manifest names format %q, not %q", m.Format, Format))
	}
	if m.Version < 1 || m.Version > Version {
		return ErrInvalidArchive.With(fmt.Sprintf("archive format version %d is not supported (this registry reads versions 1 to %d)", m.Version, Version))
	}
	ar.manifest = &m
	return nil
}

// readJSON decodes a small JSON entry, reporting a failure for the entry
// when it is too large or malformed.
func (ar *archiveReader) readJSON(name string, hdr *tar.Header, v any) bool {
	if hdr.Size > maxRecordBytes {
		ar.fail(name, ErrInvalidRecord.With(fmt.Sprintf("entry %q is %d bytes; JSON entries are at most %d", name, hdr.Size, maxRecordBytes)))
		return false
	}
	b, err := io.ReadAll(io.LimitReader(ar.tr, maxRecordBytes+1))
	if err != nil {
		ar.fail(name, ErrInvalidRecord.With("unreadable: "+err.Error()))
		return false
	}
	if err := json.Unmarshal(b, v); err != nil {
		ar.fail(name, ErrInvalidRecord.With(fmt.Sprintf("entry %q is not valid JSON of the expected shape: %v", name, err)))
		return false
	}
	return true
}

// finish reports what a complete read leaves over.
func (ar *archiveReader) finish(rep *Report) {
	// In digest order, so that the same archive gives the same report.
	for _, d := range slices.SortedFunc(maps.Keys(ar.pending), func(a, b protocol.Digest) int { return bytes.Compare(a[:], b[:]) }) {
		rep.fail(recordName(d), ErrInvalidRecord.With("a record without its document (documents/"+d.Hex()+".md is missing)"))
	}
	if n := rep.LifecycleSkipped; n > 0 {
		rep.warn("%s carry a status or history in the archive that was not restored (--keep-lifecycle restores them from an archive you trust)", plural.Of(n, "document"))
	}
	if n := rep.LifecycleKept; n > 0 {
		rep.warn("%s whose status was changed here kept it; the archive's status and history for them were not applied", plural.Of(n, "document"))
	}
	if n := rep.WithdrawalsSkipped; n > 0 {
		rep.warn("%s withdrawn in the archive are stored here live and were left live (an import changes no existing entry; --apply-withdrawals applies the archive's withdrawals)", plural.Of(n, "document"))
	}
	switch {
	case ar.summary != nil && ar.summary.Documents != ar.documents:
		rep.warn("%s announces %s but the archive holds %d: it was edited or assembled from parts",
			ar.summaryName, plural.Of(ar.summary.Documents, "document"), ar.documents)
	case ar.summary == nil && ar.manifest != nil:
		rep.warn("the archive has no summary.json: it may have been cut short")
	}
}
