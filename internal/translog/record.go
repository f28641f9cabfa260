// Package translog is the registry's transparency log: the integrator
// that turns queued changes into a Merkle tree (golang.org/x/mod/sumdb/tlog)
// with signed checkpoints (golang.org/x/mod/sumdb/note), what the /log
// endpoints and the change feed serve, and the audit `registry verify`
// runs. The record and checkpoint formats and the verifier are the public
// agora module's (agora/log_*.go), used here directly: one home.
package translog

import (
	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/store"
)

// FormatRecord writes an event's record text (agora.FormatLogRecord): an
// agora-registry/2 record when the event attests a publisher or a
// replacement, else /1.
func FormatRecord(ev store.LogEvent) ([]byte, error) {
	return agora.FormatLogRecord(agora.LogRecord{Event: ev.Event, Digest: ev.Digest, SHA256: ev.SHA256, Size: ev.Size,
		Time: ev.At, Status: ev.Status, Reason: ev.Reason, Attested: agora.LogAttestation{
			Publisher: ev.Publisher, PublisherDisplayName: ev.PublisherDisplayName,
			PublisherDomain: ev.PublisherDomain, ReplacedBy: ev.ReplacedBy}})
}
