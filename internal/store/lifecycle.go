package store

import (
	"context"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
)

// StatusChange is one change of a document's status.
type StatusChange struct {
	Status      entity.Status // active, deprecated or withdrawn
	Message     string        // the deprecation message or the withdrawal reason
	Replacement *protocol.Digest
	// Actor names who made the change: a publisher, "admin:<token name>".
	Actor string
	// Log, when set, is the change's transparency-log event, queued in the
	// change's own transaction so a crash cannot keep one without the
	// other. The engine sets its Digest, SHA256, Size and At (the stored
	// document's, the change's time). Withdrawals are queued by the engine
	// whatever the caller asks, so Log stays nil for them.
	Log *LogEvent
}

// Limits of the lifecycle reads.
const (
	MaxHistory = 100 // events one History call returns (the newest)
	MaxLineage = 100 // entries one Lineage call returns
	// CatalogWalk caps the rows one latest-only Catalog page examines: a
	// page may come back short, with a cursor to go on from.
	CatalogWalk = 1000
)

// CatalogQuery lists listed entries newest first, filtered by publisher
// and/or to lineage heads (no listed successor of the same publisher).
type CatalogQuery struct {
	Publisher  string // "" for every publisher
	LatestOnly bool
	Limit      int    // 0 means DefaultPageSize; capped at MaxPageSize
	Cursor     string // from a previous Page.NextCursor of the same query
}

// Lifecycles is the lifecycle part of the document store.
type Lifecycles interface {
	// SetStatus applies a change, records it in the history and queues
	// c.Log (or a withdrawal's event) for the transparency log, in one
	// transaction, returning the entry as it now is. Withdrawing twice
	// keeps the first withdrawal (and records nothing); any other change
	// of a withdrawn entry is ErrWithdrawn.
	SetStatus(ctx context.Context, d protocol.Digest, c StatusChange) (entity.Entry, error)
	// History lists a document's status changes, oldest first, at most
	// the newest MaxHistory.
	History(ctx context.Context, d protocol.Digest) ([]entity.HistoryEvent, error)
	// Lineage lists the entries of d's lineage: what d supersedes and what
	// supersedes it, transitively, only through documents of d's publisher,
	// withdrawn ones left out, oldest first, at most MaxLineage (d among
	// them when it is listed).
	Lineage(ctx context.Context, d protocol.Digest) ([]entity.Entry, error)
	// Catalog pages through listed entries newest first (see CatalogQuery).
	Catalog(ctx context.Context, q CatalogQuery) (Page, error)
	// RestoreLifecycle sets a document's status and history as an archive
	// recorded them (registry import --keep-lifecycle), in one
	// transaction, only when its status was never changed here (no
	// history, never set): restored is false otherwise, and nothing
	// changes. A withdrawn entry keeps its tombstone. The input passes
	// CheckRestore; an unknown document is ErrNotFound.
	RestoreLifecycle(ctx context.Context, d protocol.Digest, lc entity.Lifecycle, history []entity.HistoryEvent) (restored bool, err error)
}

// ErrPublisherUnknown is the answer for a publisher name with no account.
var ErrPublisherUnknown = apperr.New(apperr.NotFound, "unknown_publisher", "no publisher with this name")

// MaxPublishers caps one ListPublishers call.
const MaxPublishers = 10000

// Publishers is the publisher-account half of the store.
type Publishers interface {
	// CreatePublisher stores a new account; a name taken is ErrConflict.
	CreatePublisher(ctx context.Context, p entity.Publisher) (entity.Publisher, error)
	// GetPublisher returns an account or ErrPublisherUnknown.
	GetPublisher(ctx context.Context, name string) (entity.Publisher, error)
	// ListPublishers lists accounts by name, at most MaxPublishers.
	ListPublishers(ctx context.Context) ([]entity.Publisher, error)
	// SetChallenge records a pending domain verification (replacing any).
	SetChallenge(ctx context.Context, name, domain, challenge string) error
	// MarkVerified records domain as verified and clears the challenge.
	MarkVerified(ctx context.Context, name, domain string, at time.Time) error
}

// Limits of a status change, the same on every engine.
const (
	MaxStatusMessageRunes  = 500
	MaxWithdrawReasonRunes = 1000 // as every engine's Withdraw takes
	MaxActorRunes          = 200
)

// Check refuses a change no engine stores.
func (c StatusChange) Check() error {
	switch c.Status {
	case entity.StatusActive, entity.StatusDeprecated, entity.StatusWithdrawn:
	default:
		return ErrInvalid.With(fmt.Sprintf("unknown status %q: use active, deprecated or withdrawn", c.Status))
	}
	limit := MaxStatusMessageRunes
	if c.Status == entity.StatusWithdrawn {
		limit = MaxWithdrawReasonRunes
	}
	if !utf8.ValidString(c.Message) || utf8.RuneCountInString(c.Message) > limit {
		return ErrInvalid.With(fmt.Sprintf("a status message is valid UTF-8 of at most %d characters", limit))
	}
	if c.Actor == "" || !utf8.ValidString(c.Actor) || utf8.RuneCountInString(c.Actor) > MaxActorRunes {
		return ErrInvalid.With("a status change names its actor")
	}
	if c.Replacement != nil && c.Status != entity.StatusDeprecated {
		return ErrInvalid.With("only a deprecation names a replacement")
	}
	if c.Log != nil && (c.Status == entity.StatusWithdrawn || c.Log.Event == "" || c.Log.Event == "publish" || c.Log.Event == "withdraw") {
		return ErrInvalid.With("a status change's log event names a change other than a publish or withdrawal (the engine logs those itself)")
	}
	return nil
}

// ErrPublisherTaken refuses a second account of one name.
var ErrPublisherTaken = apperr.New(apperr.Conflict, "publisher_exists", "a publisher with this name exists already")

// MaxDisplayNameRunes caps a publisher's display name.
const MaxDisplayNameRunes = 100

// CheckNewPublisher refuses an account no engine stores.
func CheckNewPublisher(p entity.Publisher) error {
	if p.Name == "" {
		return entity.ErrInvalidPublisher
	}
	if _, err := entity.PublisherOr(p.Name); err != nil {
		return err
	}
	if !utf8.ValidString(p.DisplayName) || utf8.RuneCountInString(p.DisplayName) > MaxDisplayNameRunes {
		return ErrInvalid.With(fmt.Sprintf("a display name is valid UTF-8 of at most %d characters", MaxDisplayNameRunes))
	}
	return nil
}

// CheckRestore refuses a restored lifecycle no engine stores: a status
// other than active or deprecated, a deprecation without its time, a
// replacement that is the document itself or not of a deprecation, more
// than MaxHistory events, or an event no status change could have made.
func CheckRestore(d protocol.Digest, lc entity.Lifecycle, history []entity.HistoryEvent) error {
	if lc.Status != entity.StatusActive && lc.Status != entity.StatusDeprecated {
		return ErrInvalid.With(fmt.Sprintf("a restored status is active or deprecated, not %q", lc.Status))
	}
	if lc.Status == entity.StatusDeprecated && lc.ChangedAt == nil {
		return ErrInvalid.With("a restored deprecation has no time")
	}
	if len(history) > MaxHistory {
		return ErrInvalid.With(fmt.Sprintf("at most %d history events are kept; %d were given", MaxHistory, len(history)))
	}
	c := StatusChange{Status: lc.Status, Message: lc.Message, Replacement: lc.Replacement, Actor: "restore"}
	if err := c.Check(); err != nil {
		return err
	}
	if lc.Replacement != nil && *lc.Replacement == d {
		return ErrInvalid.With("a document cannot be its own replacement")
	}
	for _, ev := range history {
		c := StatusChange{Status: ev.Status, Message: ev.Message, Replacement: ev.Replacement, Actor: ev.Actor}
		if err := c.Check(); err != nil {
			return err
		}
		if ev.At.IsZero() {
			return ErrInvalid.With("a history event has no time")
		}
	}
	return nil
}
