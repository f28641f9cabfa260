// Package translog is the registry's transparency log: the record format,
// the integrator that turns queued changes into a Merkle tree
// (golang.org/x/mod/sumdb/tlog) with signed checkpoints
// (golang.org/x/mod/sumdb/note), what the /log endpoints and the change
// feed serve, and the client-side verification `registry verify` runs
// (agora.LogVerifier, the agent module's).
package translog

import (
	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/store"
)

// The record format is the public agent module's (agora/log_record.go):
// the registry writes what every verifier reads.

// RecordVersion is a record's first line.
const RecordVersion = agora.LogRecordVersion

// Events of the log.
const (
	EventPublish    = agora.LogEventPublish
	EventWithdraw   = agora.LogEventWithdraw
	EventDeprecate  = agora.LogEventDeprecate
	EventReactivate = agora.LogEventReactivate
)

// ErrBadRecord refuses record text that is not of this format.
var ErrBadRecord = agora.ErrBadLogRecord

// Record is one parsed record.
type Record = agora.LogRecord

// FormatRecord writes an event's record text (agora.FormatLogRecord): an
// agora-registry/2 record when the event attests a publisher or a
// replacement, else /1.
func FormatRecord(ev store.LogEvent) ([]byte, error) {
	return agora.FormatLogRecord(Record{Event: ev.Event, Digest: ev.Digest, SHA256: ev.SHA256, Size: ev.Size,
		Time: ev.At, Status: ev.Status, Reason: ev.Reason, Attested: agora.LogAttestation{
			Publisher: ev.Publisher, PublisherDisplayName: ev.PublisherDisplayName,
			PublisherDomain: ev.PublisherDomain, ReplacedBy: ev.ReplacedBy}})
}

// ParseRecord reads record text written by FormatRecord.
func ParseRecord(text []byte) (Record, error) { return agora.ParseLogRecord(text) }
