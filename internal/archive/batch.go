package archive

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"
	"unicode/utf8"

	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store"
)

// Target is what an import writes: the documents, and a restored
// lifecycle (Limits.KeepLifecycle).
type Target interface {
	store.Documents
	RestoreLifecycle(ctx context.Context, d protocol.Digest, lc entity.Lifecycle, history []entity.HistoryEvent) (bool, error)
	// CreatePublisher makes an account the archive's documents name
	// (Limits.KeepPublishers); store.ErrPublisherTaken when it exists.
	CreatePublisher(ctx context.Context, p entity.Publisher) (entity.Publisher, error)
}

// Limits bound an import. Zero values mean the defaults below.
type Limits struct {
	// MaxDocumentBytes is the largest document accepted (the registry's
	// document limit); 0 means protocol.DefaultMaxDocumentBytes.
	MaxDocumentBytes int
	// MaxEntries is the most archive entries or directory files looked at
	// before the import stops (tar bombs of tiny entries).
	MaxEntries int
	// MaxArchiveBytes is the most uncompressed bytes read from an archive
	// before the import stops (decompression bombs).
	MaxArchiveBytes int64
	// BatchDocuments and BatchBytes bound one PutMany call.
	BatchDocuments int
	BatchBytes     int
	// Workers is how many documents are read, hashed and parsed at once;
	// 0 means one per core (GOMAXPROCS).
	Workers int
	// Writers is how many PutMany calls may be in flight at once; 0 means
	// DefaultWriters. More than one helps only a store whose time is spent
	// outside this process (a database server with cores to spare).
	Writers int

	// What an import may claim and change; an archive is hostile input.

	// Publisher is recorded for the documents the import creates; ""
	// means ImportPublisher. The archive's own publisher names are kept
	// only with KeepPublishers (restoring a backup of this registry):
	// otherwise an archive could file its documents under any publisher,
	// as newer versions of theirs.
	Publisher      string
	KeepPublishers bool
	// ApplyWithdrawals lets the archive's tombstones withdraw documents
	// this registry already holds live. Without it an import never changes
	// an entry that exists: tombstones apply to the entries it creates.
	ApplyWithdrawals bool
	// KeepLifecycle restores the archive's statuses (deprecations with
	// their messages and replacements) and histories, on the documents the
	// import creates and on stored ones whose status was never changed
	// here. Without it every document imports with the status it has here
	// (active when new): an archive could otherwise deprecate any
	// document in favour of one of its own.
	KeepLifecycle bool
}

// Default limits.
const (
	DefaultMaxEntries      = 10_000_000
	DefaultMaxArchiveBytes = 64 << 30
	DefaultBatchDocuments  = 1000
	DefaultBatchBytes      = 16 << 20
	DefaultWriters         = 1
	// maxPendingRecords bounds records waiting for their document (each
	// at most maxRecordBytes); in a well-formed archive at most one waits.
	maxPendingRecords = 16
)

func (l Limits) withDefaults() Limits {
	if l.MaxDocumentBytes <= 0 {
		l.MaxDocumentBytes = protocol.DefaultMaxDocumentBytes
	}
	if l.MaxEntries <= 0 {
		l.MaxEntries = DefaultMaxEntries
	}
	if l.MaxArchiveBytes <= 0 {
		l.MaxArchiveBytes = DefaultMaxArchiveBytes
	}
	if l.BatchDocuments <= 0 {
		l.BatchDocuments = DefaultBatchDocuments
	}
	if l.BatchBytes <= 0 {
		l.BatchBytes = DefaultBatchBytes
	}
	if l.Workers <= 0 {
		l.Workers = runtime.GOMAXPROCS(0)
	}
	if l.Writers <= 0 {
		l.Writers = DefaultWriters
	}
	return l
}

// ImportOrigin is the origin recorded for documents that arrive without a
// record of their own (directories of .md files, bare archives), and for
// those whose record claims an origin this registry never records from an
// archive (the built-in examples', or no origin at all).
const ImportOrigin = registry.OriginImport

// ImportPublisher is the default publisher of imported documents.
const ImportPublisher = "import"

// EarliestCreatedAt is the earliest creation time a record may carry: the
// Agora protocol did not exist before, so an older time is a backdated lie
// (to look like the original of a document, or sort below it).
var EarliestCreatedAt = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// prepareDocument validates, hashes and parses one document through
// registry.PrepareDocument, the path of every publish, so an archive's
// record gets the same cleaning (title, description, tags, origin,
// publisher) as a document published over the API. want, when not nil, is
// the digest the archive claims for it; rec, when not nil, is its archive
// record (already through checkRecord).
func prepareDocument(content []byte, want *protocol.Digest, rec *Record, lim Limits) (store.NewDocument, error) {
	req := registry.PublishRequest{Content: content, Origin: ImportOrigin, Publisher: lim.Publisher}
	if req.Publisher == "" {
		req.Publisher = ImportPublisher
	}
	if rec != nil {
		req.Tags = rec.ExtraTags
		req.Origin = importedOrigin(rec.Origin)
		req.Given = protocol.Given{Title: rec.Title, Description: rec.Description}
		if lim.KeepPublishers && rec.Publisher != "" {
			req.Publisher = rec.Publisher
		}
	}
	nd, err := registry.PrepareDocument(req, lim.MaxDocumentBytes)
	if err != nil {
		return store.NewDocument{}, err
	}
	if d := nd.Document.Sums.SHA1; want != nil && *want != d {
		return store.NewDocument{}, ErrHashMismatch.With(fmt.Sprintf(
			"the document hashes to %s, not to the %s in its name; refused (tampered or corrupt archive)", d.Hex(), want.Hex()))
	}
	if rec != nil {
		nd.CreatedAt = rec.CreatedAt
		nd.WithdrawnAt = rec.WithdrawnAt
		if rec.WithdrawnAt != nil {
			nd.WithdrawReason = registry.CleanReason(rec.WithdrawReason)
		}
	}
	return nd, nil
}

// importedOrigin is the origin a record may claim: an upstream's URL, or
// "" for a document published at the registry the archive came from.
// "import" stands for anything else, the examples' origin in particular:
// only this registry's own seeding may say a document is a bundled example.
func importedOrigin(origin string) string {
	if origin == registry.OriginExample || registry.CheckOrigin(origin) != nil {
		return ImportOrigin
	}
	return origin
}

// write stores a batch in one transaction, counting the outcome in the
// batch's report. If the batch as a whole is refused, each document is
// retried alone so that one bad document costs only itself. Only store
// failures that doom the rest of the import are returned.
func (p *pipeline) write(b *batch) error {
	if len(b.entries) == 0 {
		return nil
	}
	nds := make([]store.NewDocument, len(b.entries))
	for i, e := range b.entries {
		nds[i] = e.doc
	}
	created, err := p.docs.PutMany(p.ctx, nds)
	if err == nil && len(created) != len(nds) {
		err = fmt.Errorf("the store answered %d results for %d documents", len(created), len(nds))
	}
	if err != nil {
		if fatal(p.ctx, err) {
			return nothingStored{err}
		}
		return p.putOneByOne(b)
	}
	for i, e := range b.entries {
		if err := p.settle(b, e, created[i]); err != nil {
			return err
		}
	}
	return nil
}

// nothingStored is a write's failure that stored none of its batch (the
// PutMany transaction rolled back), so writing the batch again cannot
// count a document twice.
type nothingStored struct{ error }

func (e nothingStored) Unwrap() error { return e.error }

func (p *pipeline) putOneByOne(b *batch) error {
	for _, e := range b.entries {
		_, created, err := p.docs.Put(p.ctx, e.doc)
		if err != nil {
			if fatal(p.ctx, err) {
				return err
			}
			b.rep.fail(e.name, err)
			continue
		}
		if err := p.settle(b, e, created); err != nil {
			return err
		}
	}
	return nil
}

// settle counts a stored document. An archived tombstone of a document
// already stored live is applied only with ApplyWithdrawals; without it the
// stored entry is left as it is (and the report says so).
func (p *pipeline) settle(b *batch, e *entry, created bool) error {
	withdrawn := e.doc.WithdrawnAt != nil
	if created {
		b.rep.New++
		if withdrawn {
			b.rep.Withdrawn++
		}
		return p.restoreLifecycle(b, e)
	}
	b.rep.Existing++
	if !withdrawn {
		return p.restoreLifecycle(b, e)
	}
	if !p.lim.ApplyWithdrawals {
		b.rep.WithdrawalsSkipped++
		return p.restoreLifecycle(b, e)
	}
	d := e.doc.Document.Sums.SHA1
	_, err := p.docs.Get(p.ctx, d, false)
	switch {
	case errors.Is(err, store.ErrWithdrawn):
		return p.restoreLifecycle(b, e)
	case err != nil:
		if fatal(p.ctx, err) {
			return err
		}
		b.rep.fail(e.name, err)
		return nil
	}
	if err := p.docs.Withdraw(p.ctx, d, e.doc.WithdrawReason); err != nil {
		if fatal(p.ctx, err) {
			return err
		}
		b.rep.fail(e.name, err)
		return nil
	}
	b.rep.Withdrawn++
	return p.restoreLifecycle(b, e)
}

// restoreLifecycle applies the record's lifecycle to a stored document
// when KeepLifecycle trusts the archive with it; otherwise, or when the
// document's status was changed here already, the report counts it left.
func (p *pipeline) restoreLifecycle(b *batch, e *entry) error {
	rec := e.rec
	if rec == nil || !rec.hasLifecycle() {
		return nil
	}
	if !p.lim.KeepLifecycle {
		b.rep.LifecycleSkipped++
		return nil
	}
	lc, history := rec.lifecycle()
	restored, err := p.docs.RestoreLifecycle(p.ctx, e.doc.Document.Sums.SHA1, lc, history)
	switch {
	case err != nil && fatal(p.ctx, err):
		return err
	case err != nil:
		b.rep.fail(e.name, err)
	case restored:
		b.rep.LifecycleRestored++
		if lc.Replacement != nil {
			b.replacements = append(b.replacements, *lc.Replacement)
		}
	default:
		b.rep.LifecycleKept++
	}
	return nil
}

// fatal tells store failures that will fail every later write too (the
// database is down, the import was cancelled) from per-document ones.
func fatal(ctx context.Context, err error) bool {
	return ctx.Err() != nil || apperr.KindOf(err) == apperr.Unavailable ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// checkRecord refuses records an archive should never hold.
func checkRecord(rec *Record, d protocol.Digest) error {
	switch {
	case rec.Digest != d:
		return ErrInvalidRecord.With(fmt.Sprintf("the record names %s, not the %s in its entry name", rec.Digest.Hex(), d.Hex()))
	case len(rec.Origin) > maxOriginBytes:
		return ErrInvalidRecord.With(fmt.Sprintf("the origin is longer than %d bytes", maxOriginBytes))
	case utf8.RuneCountInString(rec.WithdrawReason) > maxWithdrawReasonRunes:
		return ErrInvalidRecord.With(fmt.Sprintf("the withdrawal reason is longer than %d characters", maxWithdrawReasonRunes))
	case utf8.RuneCountInString(rec.Title) > protocol.MaxTitleRunes:
		return ErrInvalidRecord.With(fmt.Sprintf("the title is longer than %d characters", protocol.MaxTitleRunes))
	case utf8.RuneCountInString(rec.Description) > protocol.MaxDescriptionRunes:
		return ErrInvalidRecord.With(fmt.Sprintf("the description is longer than %d characters", protocol.MaxDescriptionRunes))
	case len(rec.ExtraTags) > protocol.MaxTags:
		return ErrInvalidRecord.With(fmt.Sprintf("more than %d extra tags", protocol.MaxTags))
	case rec.CreatedAt.After(time.Now().Add(24 * time.Hour)):
		return ErrInvalidRecord.With("the creation time is in the future")
	case !rec.CreatedAt.IsZero() && rec.CreatedAt.Before(EarliestCreatedAt):
		return ErrInvalidRecord.With(fmt.Sprintf("the creation time %s is before %s, when no Agora document existed: backdated",
			rec.CreatedAt.UTC().Format(time.RFC3339), EarliestCreatedAt.Format("2006-01-02")))
	case rec.WithdrawnAt != nil && rec.WithdrawnAt.After(time.Now().Add(24*time.Hour)):
		return ErrInvalidRecord.With("the withdrawal time is in the future")
	case rec.Publisher != "" && !validPublisher(rec.Publisher):
		return ErrInvalidRecord.With(fmt.Sprintf("%q is not a publisher name", rec.Publisher))
	}
	return checkLifecycle(rec)
}

// validPublisher reports whether a record's publisher is a well-formed name.
func validPublisher(name string) bool {
	_, err := entity.PublisherOr(name)
	return err == nil
}
