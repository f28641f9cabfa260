// Package translog is the registry's transparency log: the record format,
// the integrator that turns queued changes into a Merkle tree
// (golang.org/x/mod/sumdb/tlog) with signed checkpoints
// (golang.org/x/mod/sumdb/note), what the /log endpoints and the change
// feed serve, and the client-side verification `registry verify` runs.
package translog

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// RecordVersion is a record's first line.
const RecordVersion = "agora-registry/1"

// Events of the log.
const (
	EventPublish  = "publish"
	EventWithdraw = "withdraw"
)

// ErrBadRecord refuses record text that is not of this format.
var ErrBadRecord = apperr.New(apperr.Invalid, "bad_log_record", "the log record is not an agora-registry/1 record")

// word is the form of an event or status name.
var word = regexp.MustCompile(`^[a-z][a-z0-9-]{0,31}$`)

// Record is one parsed record.
type Record struct {
	Event  string
	Digest protocol.Digest
	SHA256 [32]byte
	Size   int
	Time   time.Time
	// Status and Reason are set for status changes (every event but
	// publish); Reason may be empty.
	Status string
	Reason string
}

// FormatRecord writes an event's record text: one field per line, UTF-8,
// ending in a newline. A status change adds the new status and the reason
// as a JSON string, so the reason is one line (never blank) whatever it
// holds.
func FormatRecord(ev store.LogEvent) ([]byte, error) {
	if !word.MatchString(ev.Event) {
		return nil, ErrBadRecord.With(fmt.Sprintf("%q is not an event name", ev.Event))
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\n%s\n%s\n%s\n%d\n%s\n", RecordVersion, ev.Event, ev.Digest.Hex(),
		hex.EncodeToString(ev.SHA256[:]), ev.Size, ev.At.UTC().Truncate(time.Microsecond).Format(time.RFC3339Nano))
	if ev.Event == EventPublish {
		return b.Bytes(), nil
	}
	if !word.MatchString(ev.Status) {
		return nil, ErrBadRecord.With(fmt.Sprintf("%q is not a status name", ev.Status))
	}
	reason, err := quote(ev.Reason)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(&b, "%s\n%s\n", ev.Status, reason)
	return b.Bytes(), nil
}

// quote is s as a JSON string without HTML escaping.
func quote(s string) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// ParseRecord reads record text written by FormatRecord.
func ParseRecord(text []byte) (Record, error) {
	if _, err := tlog.FormatRecord(0, text); err != nil {
		return Record{}, ErrBadRecord.With("the record is not valid tlog record text (UTF-8 lines without control characters, ending in a newline)")
	}
	s := string(text)
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	if len(lines) != 6 && len(lines) != 8 || lines[0] != RecordVersion {
		return Record{}, ErrBadRecord
	}
	var r Record
	r.Event = lines[1]
	if !word.MatchString(r.Event) || (r.Event == EventPublish) != (len(lines) == 6) {
		return Record{}, ErrBadRecord.With("the record's event does not match its fields")
	}
	d, err := protocol.ParseDigest(lines[2])
	if err != nil || len(lines[2]) != 40 || lines[2] != d.Hex() {
		return Record{}, ErrBadRecord.With("the record's SHA-1 is not lower-case hex")
	}
	r.Digest = d
	sum, err := hex.DecodeString(lines[3])
	if err != nil || len(sum) != 32 || lines[3] != hex.EncodeToString(sum) {
		return Record{}, ErrBadRecord.With("the record's SHA-256 is not lower-case hex")
	}
	copy(r.SHA256[:], sum)
	if r.Size, err = strconv.Atoi(lines[4]); err != nil || r.Size < 0 || strconv.Itoa(r.Size) != lines[4] {
		return Record{}, ErrBadRecord.With("the record's size is not a number")
	}
	if r.Time, err = time.Parse(time.RFC3339Nano, lines[5]); err != nil {
		return Record{}, ErrBadRecord.With("the record's time is not RFC 3339")
	}
	if len(lines) == 8 {
		r.Status = lines[6]
		if !word.MatchString(r.Status) || json.Unmarshal([]byte(lines[7]), &r.Reason) != nil || !strings.HasPrefix(lines[7], `"`) {
			return Record{}, ErrBadRecord.With("the record's status or reason is malformed")
		}
	}
	return r, nil
}
