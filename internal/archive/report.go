package archive

import (
	"fmt"

	"github.com/agora-registry/registry/internal/apperr"
)

// MaxReportedErrors caps the per-entry errors a Report keeps; Failed still
// counts them all.
const MaxReportedErrors = 1000

// Report is the outcome of an import.
//
// New and Existing count documents by whether the store already held them;
// Withdrawn counts tombstones this import applied (a withdrawn document that
// is new counts in New and in Withdrawn). Importing the same archive again
// therefore reports everything as Existing and nothing as New or Withdrawn.
type Report struct {
	New       int
	Existing  int
	Withdrawn int
	Failed    int
	// WithdrawalsSkipped counts tombstones in the archive for documents
	// stored here live, left live (Limits.ApplyWithdrawals applies them).
	WithdrawalsSkipped int
	// LifecycleRestored counts records whose status and history were
	// restored (Limits.KeepLifecycle); LifecycleKept those whose document
	// had a status changed here, left as it was; LifecycleSkipped those
	// not restored because the archive was not trusted with them.
	LifecycleRestored int
	LifecycleKept     int
	LifecycleSkipped  int
	// PublishersCreated counts the accounts made for kept publisher names
	// (Limits.KeepPublishers).
	PublishersCreated int
	// Errors describe failed entries (at most MaxReportedErrors).
	Errors []EntryError
	// Warnings are doubts about the archive as a whole that did not stop the
	// import, e.g. a summary that does not match what was read.
	Warnings []string
}

// EntryError is why one archive entry or file was not imported.
type EntryError struct {
	Entry string // the entry name or file path
	Err   error
}

func (e EntryError) Error() string { return e.Entry + ": " + e.Err.Error() }

func (e EntryError) Unwrap() error { return e.Err }

func (r *Report) fail(entry string, err error) {
	r.Failed++
	if len(r.Errors) < MaxReportedErrors {
		r.Errors = append(r.Errors, EntryError{Entry: entry, Err: err})
	}
}

// add counts another report's outcome in this one, its failures after
// this one's.
func (r *Report) add(o Report) {
	r.New += o.New
	r.Existing += o.Existing
	r.Withdrawn += o.Withdrawn
	r.WithdrawalsSkipped += o.WithdrawalsSkipped
	r.LifecycleRestored += o.LifecycleRestored
	r.LifecycleKept += o.LifecycleKept
	r.LifecycleSkipped += o.LifecycleSkipped
	r.Failed += o.Failed
	room := max(MaxReportedErrors-len(r.Errors), 0)
	r.Errors = append(r.Errors, o.Errors[:min(room, len(o.Errors))]...)
	r.Warnings = append(r.Warnings, o.Warnings...)
}

func (r *Report) warn(format string, args ...any) {
	r.Warnings = append(r.Warnings, fmt.Sprintf(format, args...))
}

// Error codes of archive problems. Codes of document problems are the
// protocol package's (document_too_large, invalid_utf8, ...).
var (
	ErrInvalidArchive  = apperr.New(apperr.Invalid, "invalid_archive", "not a registry archive (a gzip-compressed tar)")
	ErrArchiveTooLarge = apperr.New(apperr.TooLarge, "archive_too_large", "the archive exceeds the import limits")
	ErrEntryName       = apperr.New(apperr.Invalid, "archive_entry_name", "unexpected entry name")
	ErrEntryType       = apperr.New(apperr.Invalid, "archive_entry_type", "not a regular file")
	ErrHashMismatch    = apperr.New(apperr.Invalid, "hash_mismatch", "the document does not hash to the digest in its name")
	ErrInvalidRecord   = apperr.New(apperr.Invalid, "invalid_record", "invalid document record")
)
