// Package entity holds the registry's vocabulary: the documents
// (Entry, its Status and Lifecycle), publishers, API tokens and scopes,
// directory agents with the dialects they speak, and webhooks. Storage
// (internal/store), the business layer (internal/registry) and the HTTP
// surfaces all speak of these types; none of them lives in a package
// that does I/O.
package entity

import (
	"fmt"
	"regexp"
	"time"

	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/protocol"
)

// Status is a document's place in its lifecycle.
type Status string

const (
	StatusActive     Status = "active"
	StatusDeprecated Status = "deprecated" // still served; a message and maybe a replacement say what to use
	StatusWithdrawn  Status = "withdrawn"  // tombstoned by an administrator (Entry.WithdrawnAt)
)

// Lifecycle is the status a document's publisher (or an administrator)
// set. A withdrawn entry keeps the lifecycle it had; Entry.Status says
// withdrawn.
type Lifecycle struct {
	Status      Status // StatusActive or StatusDeprecated
	Message     string
	Replacement *protocol.Digest
	// ChangedAt is when the status was last set (nil: never changed); the
	// raw answer's Deprecation header carries it.
	ChangedAt *time.Time
}

// Status is the entry's current status.
func (e Entry) Status() Status {
	if e.Withdrawn() {
		return StatusWithdrawn
	}
	if e.Lifecycle.Status == "" {
		return StatusActive
	}
	return e.Lifecycle.Status
}

// HistoryEvent is one recorded status change.
type HistoryEvent struct {
	At          time.Time
	Actor       string
	Status      Status
	Message     string
	Replacement *protocol.Digest
}

// Publisher is a publisher account.
type Publisher struct {
	Name           string
	DisplayName    string
	VerifiedDomain string // "" until a domain is verified
	VerifiedAt     *time.Time
	// ChallengeDomain and Challenge are the pending verification, if any.
	ChallengeDomain string
	Challenge       string
	CreatedAt       time.Time
}

// Deprecated reports whether the entry is deprecated (and not withdrawn).
func (e Entry) Deprecated() bool { return e.Status() == StatusDeprecated }

// Webhook is a registered receiver of the log's records.
type Webhook struct {
	ID     int64
	URL    string
	Secret string
	Events []string // events delivered; the rest are skipped
	// Delivered is the next log index to deliver.
	Delivered    int64
	Attempts     int        // failed attempts of the record at Delivered
	FailingSince *time.Time // first failure of that record
	NextAt       time.Time  // not before: the backoff
	CreatedAt    time.Time
}

// Entry is one stored protocol document and its metadata. Content is nil
// unless it was asked for.
type Entry struct {
	Digest    protocol.Digest
	SHA256    [32]byte
	Size      int
	Metadata  protocol.Metadata
	Lints     []protocol.Lint
	CreatedAt time.Time
	// Origin is where the document came from: "" for a direct publish,
	// "import", "example" (seeded), or the upstream registry URL it was
	// mirrored from.
	Origin string
	// Publisher names the publisher whose token first published the
	// document (DefaultPublisher for documents older than publishers).
	// Publishing the same bytes again under another publisher changes
	// nothing.
	Publisher string
	// Lifecycle is the status set by the publisher or an administrator.
	Lifecycle      Lifecycle
	WithdrawnAt    *time.Time
	WithdrawReason string
	// Demoted says why search ranks the entry after every live match
	// (zero: it does not).
	Demoted Demotion
	Content []byte
}

// Demotion is a set of reasons to rank an entry after every live match of
// a search, stored in the documents' demoted column. Any reason demotes;
// the reasons only say what listings show.
type Demotion uint8

const (
	// DemotedSuperseded: a listed newer version by the same publisher
	// supersedes the entry. Engines keep it as versions come and go.
	DemotedSuperseded Demotion = 1 << 0
	// DemotedDeprecated: the entry's status is deprecated. SetStatus and
	// RestoreLifecycle keep it with the status.
	DemotedDeprecated Demotion = 1 << 1
)

// Superseded reports whether a newer version of the entry is listed.
func (e Entry) Superseded() bool { return e.Demoted&DemotedSuperseded != 0 }

// DefaultPublisher is the publisher of tokens and documents that predate
// publishers and of tokens made without --publisher (tokenless publishes
// are registry.AnonymousPublisher's).
const DefaultPublisher = "default"

// ErrInvalidPublisher refuses a malformed publisher name.
var ErrInvalidPublisher = apperr.New(apperr.Invalid, "invalid_publisher",
	"a publisher name is 2 to 39 characters: lower-case letters, digits and '-', starting with a letter or digit")

// publisherName is the form of a publisher name (it appears in URLs:
// /publishers/NAME).
var publisherName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{1,38}$`)

// PublisherOr checks a publisher name; "" stands for DefaultPublisher.
// Engines store what it returns.
func PublisherOr(p string) (string, error) {
	if p == "" {
		return DefaultPublisher, nil
	}
	if !publisherName.MatchString(p) {
		return "", ErrInvalidPublisher.With(fmt.Sprintf("%q is not a publisher name: use 2 to 39 lower-case letters, digits and '-', starting with a letter or digit", p))
	}
	return p, nil
}

// Withdrawn reports whether the entry carries a tombstone.
func (e Entry) Withdrawn() bool { return e.WithdrawnAt != nil }

// InUTC is t in UTC, nil staying nil.
func InUTC(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// Scope is what an API token may do.
type Scope string

const (
	ScopePublish Scope = "publish"
	ScopeAdmin   Scope = "admin"
	// ScopeRead reads a private registry (--private); publish and admin
	// imply it.
	ScopeRead Scope = "read"
)

// ValidScope reports whether s is a scope a token may carry.
func ValidScope(s Scope) bool { return s == ScopePublish || s == ScopeAdmin || s == ScopeRead }

// Token is an API token's stored record. The secret itself is never stored;
// SecretHash is its SHA-256.
type Token struct {
	ID   int64
	Name string
	// Publisher is the publisher the token publishes as.
	Publisher  string
	Scopes     []Scope
	SecretHash [32]byte
	CreatedAt  time.Time
	LastUsedAt *time.Time
	RevokedAt  *time.Time
	// CreatedBy is the signed-in user who made the token in the browser
	// ("" for tokens made on the command line).
	CreatedBy string
}

// Has reports whether the token carries a scope; admin implies every
// scope, publish implies read.
func (t Token) Has(s Scope) bool {
	for _, have := range t.Scopes {
		if have == s || have == ScopeAdmin || (s == ScopeRead && have == ScopePublish) {
			return true
		}
	}
	return false
}
