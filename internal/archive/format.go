// Package archive writes and reads registry archives: one gzip-compressed tar
// holding every document (withdrawn ones too) with the metadata the store
// cannot rebuild from the bytes alone, for backups, air-gapped copies and
// moves between engines.
//
// Layout, in this order:
//
//	manifest.json          format name and version, engine, creation time
//	publishers.json        the publisher accounts (name, display name)
//	documents/<hex>.json   one document's record (origin, times, extra tags, tombstone)
//	documents/<hex>.md     the document's exact bytes; <hex> is their SHA-1
//	...                    (each .json immediately precedes its .md)
//	summary.json           counts of what was written
//
// The counts sit in a trailing summary rather than in the manifest because
// export streams the store (memory stays bounded) and only knows them at the
// end; the importer uses them to detect an archive cut short. Everything but
// the .md files is optional on import, so a tar of .md files named by their
// hash is a valid archive too.
package archive

import (
	"encoding/hex"
	"strings"
	"time"

	"github.com/agora-registry/registry/internal/protocol"
)

// Format identifies the archive layout; Version changes when a reader of an
// older version could misread the archive.
const (
	Format  = "agora-registry-archive"
	Version = 1
)

// Entry names.
const (
	manifestName   = "manifest.json"
	publishersName = "publishers.json"
	summaryName    = "summary.json"
	documentDir    = "documents/"
	contentExt     = ".md"
	recordExt      = ".json"
)

// Manifest is the first entry of an archive.
type Manifest struct {
	Format    string    `json:"format"`
	Version   int       `json:"version"`
	Engine    string    `json:"engine"`
	CreatedAt time.Time `json:"createdAt"`
}

// PublisherRecord is one publisher account in publishers.json. A verified
// domain is not carried: it is proved again on the registry that serves
// it (registry publisher verify).
type PublisherRecord struct {
	Name        string `json:"name"`
	DisplayName string `json:"displayName,omitempty"`
}

// Summary is the last entry of an archive.
type Summary struct {
	Documents  int   `json:"documents"`  // all documents, withdrawn ones included
	Publishers int   `json:"publishers"` // accounts in publishers.json
	Withdrawn  int   `json:"withdrawn"`
	Bytes      int64 `json:"bytes"` // document bytes, before compression
}

// Record is what an archive keeps about one document beside its bytes:
// whatever cannot be derived from them again.
type Record struct {
	Digest protocol.Digest `json:"digest"`
	// ExtraTags are the tags not in the document's own front matter (given
	// beside it at publish time).
	ExtraTags []string `json:"extraTags,omitempty"`
	// Title and Description are set when the stored ones differ from what
	// the document itself gives (the paper demo's publish sends a name and
	// description beside the text).
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Origin      string `json:"origin"`
	// Publisher is the publisher that first published the document; an
	// import keeps it only when told to (Limits.KeepPublishers).
	Publisher      string     `json:"publisher,omitempty"`
	CreatedAt      time.Time  `json:"createdAt"`
	WithdrawnAt    *time.Time `json:"withdrawnAt,omitempty"`
	WithdrawReason string     `json:"withdrawReason,omitempty"`
	// The lifecycle: a status set here (deprecated, or active again) with
	// its message, replacement and time, and every recorded status change.
	// All omitted for a document whose status was never changed; an
	// import restores them only when told to (Limits.KeepLifecycle).
	Status          string           `json:"status,omitempty"`
	StatusMessage   string           `json:"statusMessage,omitempty"`
	Replacement     *protocol.Digest `json:"replacement,omitempty"`
	StatusChangedAt *time.Time       `json:"statusChangedAt,omitempty"`
	History         []HistoryEvent   `json:"history,omitempty"`
}

// HistoryEvent is one status change as an archive keeps it.
type HistoryEvent struct {
	At          time.Time        `json:"at"`
	Actor       string           `json:"actor"`
	Status      string           `json:"status"`
	Message     string           `json:"message,omitempty"`
	Replacement *protocol.Digest `json:"replacement,omitempty"`
}

// hasLifecycle reports whether the record carries a lifecycle to restore.
func (r *Record) hasLifecycle() bool {
	return r.Status != "" || r.StatusChangedAt != nil || len(r.History) > 0
}

// Limits on what a record may hold; an archive is hostile input. A record
// with the longest history (store.MaxHistory events of the longest
// messages and actors, JSON-escaped) is under 1 MiB.
const (
	maxRecordBytes = 1 << 20
	maxOriginBytes = 2048
	// maxWithdrawReasonRunes is the engines' limit on a withdrawal reason.
	maxWithdrawReasonRunes = 1000
)

func contentName(d protocol.Digest) string { return documentDir + d.Hex() + contentExt }
func recordName(d protocol.Digest) string  { return documentDir + d.Hex() + recordExt }

// entryKind classifies an archive entry by its name.
type entryKind int

const (
	kindUnknown entryKind = iota
	kindManifest
	kindSummary
	kindContent
	kindRecord
	kindDirectory
	kindPublishers
)

// classify reads an entry name. Only the exact names of the layout are
// accepted, so no name with "..", a leading "/", a backslash or any other
// surprise gets further than a per-entry error. (The importer never writes
// files, but names are matched strictly anyway so there is nothing to get
// wrong later.)
func classify(name string) (entryKind, protocol.Digest) {
	name = strings.TrimPrefix(name, "./")
	switch name {
	case manifestName:
		return kindManifest, protocol.Digest{}
	case publishersName:
		return kindPublishers, protocol.Digest{}
	case summaryName:
		return kindSummary, protocol.Digest{}
	case documentDir, strings.TrimSuffix(documentDir, "/"):
		return kindDirectory, protocol.Digest{}
	}
	rest, ok := strings.CutPrefix(name, documentDir)
	if !ok {
		return kindUnknown, protocol.Digest{}
	}
	kind := kindUnknown
	var hexPart string
	switch {
	case strings.HasSuffix(rest, contentExt):
		kind, hexPart = kindContent, strings.TrimSuffix(rest, contentExt)
	case strings.HasSuffix(rest, recordExt):
		kind, hexPart = kindRecord, strings.TrimSuffix(rest, recordExt)
	default:
		return kindUnknown, protocol.Digest{}
	}
	var d protocol.Digest
	if len(hexPart) != 2*protocol.DigestSize || strings.ToLower(hexPart) != hexPart {
		return kindUnknown, protocol.Digest{}
	}
	if _, err := hex.Decode(d[:], []byte(hexPart)); err != nil {
		return kindUnknown, protocol.Digest{}
	}
	return kind, d
}
