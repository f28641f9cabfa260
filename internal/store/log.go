package store

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
)

// The transparency log's storage. Engines queue a LogEvent in the same
// transaction as every publish and first withdrawal (a trigger, so no write
// path can skip it) and every other status change (StatusChange.Log, in
// SetStatus's transaction); IntegrateLog turns queued events into numbered records
// and stored hashes, one integrator at a time across every process on the
// database. What a record says and how hashes are computed is the business
// layer's (internal/translog); engines only keep what it hands them.

// Limits of the log API.
const (
	// MaxLogBatch caps the events one integration takes.
	MaxLogBatch = 256
	// MaxLogRecords caps the records one LogRecords call returns.
	MaxLogRecords = 1000
	// MaxLogHashes caps the hashes one LogHashes call reads (a tile of
	// height 8 is 256; a proof needs a few dozen).
	MaxLogHashes = 1024
)

// ErrLogPending says a document's event is queued but not yet in the log.
var ErrLogPending = apperr.New(apperr.NotFound, "log_pending", "the change is queued but not yet in the transparency log; try again in a moment")

// LogEvent is one change waiting to enter the log.
type LogEvent struct {
	Event  string // "publish", "withdraw", or a status change's name
	Digest protocol.Digest
	SHA256 [32]byte
	Size   int
	At     time.Time
	Status string // for status changes: the new status
	Reason string // for status changes: why
	// What the record attests (agora.LogAttestation): the document's
	// publisher as its account reads when the event is queued (the domain
	// only when verified; engines fill these three), and a deprecation's
	// replacement (lower-case hex, the caller's). Empty for events queued
	// before the log attested them.
	Publisher            string
	PublisherDisplayName string
	PublisherDomain      string
	ReplacedBy           string
}

// LogRecord is one record of the log.
type LogRecord struct {
	Index  int64
	Digest protocol.Digest
	Event  string
	Text   []byte
}

// LogHead is the latest tree head: its size, root hash and signed
// checkpoint ("" before the first signature).
type LogHead struct {
	Size       int64
	Root       tlog.Hash
	Checkpoint []byte
}

// LogBatch is what an integration writes: the records of indexes
// head.Size… in order, the stored hashes from tlog.StoredHashCount(head.Size)
// on, and the new head.
type LogBatch struct {
	Records []LogRecord
	Hashes  []tlog.Hash
	Head    LogHead
}

// Integrator builds a batch from the current head and the oldest queued
// events; read reads stored hashes inside the integration's transaction.
// It returns ok=false when there is nothing to write.
type Integrator func(head LogHead, pending []LogEvent, read tlog.HashReader) (batch LogBatch, ok bool, err error)

// Log is the transparency-log half of the store.
type Log interface {
	// IntegrateLog runs fn over the head and up to limit (at most
	// MaxLogBatch) oldest queued events in one transaction that excludes
	// every other integration on the database, stores fn's batch, removes
	// the events it took and returns the new head and how many it took.
	IntegrateLog(ctx context.Context, limit int, fn Integrator) (LogHead, int, error)
	// LogHead returns the latest head.
	LogHead(ctx context.Context) (LogHead, error)
	// LogHashes reads stored hashes (at most MaxLogHashes); any index not
	// stored is ErrNotFound.
	LogHashes(ctx context.Context, indexes []int64) ([]tlog.Hash, error)
	// LogRecords returns up to n (at most MaxLogRecords) records from
	// index from on, in order.
	LogRecords(ctx context.Context, from int64, n int) ([]LogRecord, error)
	// LogLookup returns the index of a document's first record:
	// ErrLogPending while queued, ErrNotFound when never logged.
	LogLookup(ctx context.Context, d protocol.Digest) (int64, error)
	// LogSigningKey returns the stored signing key, storing generate's
	// when there is none (concurrent first starts agree on one).
	LogSigningKey(ctx context.Context, generate func() (string, error)) (string, error)
	// LockWitnesses takes the database's witness lock unless another
	// process holds it (ok false): one process at a time talks to the log's
	// witnesses, so no two send a witness conflicting requests. unlock
	// releases it.
	LockWitnesses(ctx context.Context) (unlock func(), ok bool, err error)
	// WitnessStates returns the stored state of every witness, by key.
	WitnessStates(ctx context.Context) ([]WitnessState, error)
	// SaveWitnessState stores a witness's state, replacing what was stored.
	SaveWitnessState(ctx context.Context, w WitnessState) error
}

// WitnessState is what the log knows of one witness (c2sp.org/tlog-witness).
type WitnessState struct {
	Key string // the witness's cosignature verifier key
	// Size is the tree size the witness holds for this log: the old size
	// of the next request.
	Size int64
	// Cosignature is the witness's cosignature line of the checkpoint of
	// size CosignedSize ("" before the first).
	CosignedSize int64
	Cosignature  string
}

// CheckBatch refuses a batch that does not extend head by exactly the
// pending events, in order (engines call it before writing).
func CheckBatch(head LogHead, pending []LogEvent, b LogBatch) error {
	if len(b.Records) != len(pending) || b.Head.Size != head.Size+int64(len(pending)) {
		return apperr.New(apperr.Internal, "log_batch", "a log batch does not cover exactly the queued events")
	}
	for i, r := range b.Records {
		if r.Index != head.Size+int64(i) || r.Digest != pending[i].Digest {
			return apperr.New(apperr.Internal, "log_batch", "a log batch's records are out of order")
		}
	}
	if int64(len(b.Hashes)) != tlog.StoredHashCount(b.Head.Size)-tlog.StoredHashCount(head.Size) {
		return apperr.New(apperr.Internal, "log_batch", "a log batch has the wrong number of stored hashes")
	}
	return nil
}

// Bounds of a stored witness state (a verifier key and one cosignature
// line are about 100 bytes each).
const (
	MaxWitnessKeyBytes         = 1024
	MaxWitnessCosignatureBytes = 1024
)

// CheckWitnessState validates a SaveWitnessState call.
func CheckWitnessState(w WitnessState) error {
	if w.Key == "" || len(w.Key) > MaxWitnessKeyBytes || len(w.Cosignature) > MaxWitnessCosignatureBytes || w.Size < 0 || w.CosignedSize < 0 {
		return ErrInvalid.With(fmt.Sprintf("a witness state has a key of 1 to %d bytes, a cosignature of at most %d and sizes ≥ 0", MaxWitnessKeyBytes, MaxWitnessCosignatureBytes))
	}
	return nil
}

// CheckHashIndexes validates a LogHashes call.
func CheckHashIndexes(indexes []int64) error {
	if len(indexes) > MaxLogHashes {
		return ErrInvalid.With(fmt.Sprintf("at most %d log hashes at a time", MaxLogHashes))
	}
	for _, i := range indexes {
		if i < 0 {
			return ErrInvalid.With("a log hash index is not negative")
		}
	}
	return nil
}

// CheckRecordRange validates a LogRecords call.
func CheckRecordRange(from int64, n int) error {
	if from < 0 || n < 1 || n > MaxLogRecords {
		return ErrInvalid.With(fmt.Sprintf("log records are read from index 0 on, 1 to %d at a time", MaxLogRecords))
	}
	return nil
}

// OrderHashes answers indexes from what an engine found, ErrNotFound for
// any index it did not.
func OrderHashes(indexes []int64, found map[int64]tlog.Hash) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(indexes))
	for i, idx := range indexes {
		h, ok := found[idx]
		if !ok {
			return nil, ErrNotFound.With(fmt.Sprintf("log hash %d is not stored", idx))
		}
		out[i] = h
	}
	return out, nil
}

// FollowState is how far an upstream's log was applied here
// (`registry serve --follow`).
type FollowState struct {
	Upstream    string
	Applied     int64  // records of the upstream's log applied (the next index)
	VerifierKey string // the upstream's key, pinned on first contact
	Checkpoint  []byte // the last checkpoint verified
	Forked      bool   // the upstream showed an inconsistent log: stopped
	// Evidence is the fork's proof (JSON: both signed checkpoints and the
	// failing consistency proof), kept until an operator resets the
	// upstream; "" when not forked.
	Evidence string
}

// FollowDoc is what one upstream's log says of one document it logged (a
// publish record in that upstream's log, and its later status records).
type FollowDoc struct {
	Upstream    string
	Digest      protocol.Digest
	Index       int64         // the publish record's index in the upstream's log
	Status      entity.Status // active, deprecated or withdrawn, by that upstream
	Message     string        // deprecation message or withdrawal reason
	Replacement *protocol.Digest
	// Publisher as the upstream attests it (agora-registry/2 records);
	// "" for /1 records.
	Publisher            string
	PublisherDisplayName string
	PublisherDomain      string
	// Quarantine says why the upstream's bytes were not stored (they do
	// not match its record); "" when they were, or were not fetched.
	Quarantine string
}

// MaxFollowQuarantine caps one FollowQuarantine listing.
const MaxFollowQuarantine = 1000

// Follows is the followers' half of the store.
type Follows interface {
	// FollowState returns an upstream's state, ErrNotFound before the
	// first save.
	FollowState(ctx context.Context, upstream string) (FollowState, error)
	// SaveFollowState stores an upstream's state.
	SaveFollowState(ctx context.Context, st FollowState) error
	// SaveFollowDocs stores what upstreams' logs say of documents (a
	// follower's page, in one transaction), each replacing what was
	// stored for that upstream and document.
	SaveFollowDocs(ctx context.Context, fds []FollowDoc) error
	// FollowDocs lists what every upstream's log says of each of ds (at
	// most MaxResolve), by digest, then upstream.
	FollowDocs(ctx context.Context, ds []protocol.Digest) ([]FollowDoc, error)
	// FollowQuarantine lists an upstream's quarantined documents, newest
	// record first, at most limit (1 to MaxFollowQuarantine), and counts
	// them all.
	FollowQuarantine(ctx context.Context, upstream string, limit int) (docs []FollowDoc, total int, err error)
	// FollowWithdrawn lists documents the upstream's log withdrew (not
	// quarantined) that are stored here and not withdrawn, at most limit
	// (1 to MaxFollowQuarantine): withdrawals a follower may still owe.
	FollowWithdrawn(ctx context.Context, upstream string, limit int) ([]protocol.Digest, error)
	// FollowPublisherSeen reports whether a document the upstream logged
	// names publisher as its attested publisher.
	FollowPublisherSeen(ctx context.Context, upstream, publisher string) (bool, error)
}

// Webhooks is the webhook half of the store.
type Webhooks interface {
	// CreateWebhook registers a webhook delivering records from index
	// from on.
	CreateWebhook(ctx context.Context, url, secret string, events []string, from int64) (entity.Webhook, error)
	ListWebhooks(ctx context.Context) ([]entity.Webhook, error)
	DeleteWebhook(ctx context.Context, id int64) error // ErrNotFound if none
	// ClaimWebhooks leases, until now+lease, the webhooks due at now whose
	// lease ran out, and returns them oldest first: one process delivers
	// each at a time.
	ClaimWebhooks(ctx context.Context, now time.Time, lease time.Duration) ([]entity.Webhook, error)
	// SaveWebhookProgress stores a webhook's cursor and backoff and ends
	// its lease.
	SaveWebhookProgress(ctx context.Context, w entity.Webhook) error
}
