package agora

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
)

// A registry's transparency log records every publish and status change
// (golang.org/x/mod/sumdb/tlog); this file is its record format, which the
// registry writes and every verifier reads.

// LogRecordVersion is the first line of records without attestations;
// LogRecordVersion2 that of records carrying them (publisher,
// replacement), one JSON line after the time. A verifier reads both:
// records written before the registry attested publishers stay /1.
const (
	LogRecordVersion  = "agora-registry/1"
	LogRecordVersion2 = "agora-registry/2"
)

// Events of the log.
const (
	LogEventPublish    = "publish"
	LogEventWithdraw   = "withdraw"
	LogEventDeprecate  = "deprecate"  // status deprecated; the reason names any replacement
	LogEventReactivate = "reactivate" // status active again
)

// ErrBadLogRecord refuses record text that is not of this format.
var ErrBadLogRecord = newError(KindInvalid, "bad_log_record", "the log record is not an agora-registry/1 or /2 record")

// logWord is the form of an event or status name.
var logWord = regexp.MustCompile(`^[a-z][a-z0-9-]{0,31}$`)

// LogRecord is one record of a registry's log.
type LogRecord struct {
	Event  string
	Digest Digest
	SHA256 [32]byte
	Size   int
	Time   time.Time
	// Status and Reason are set for status changes (every event but
	// publish); Reason may be empty.
	Status string
	Reason string
	// Attested holds what an agora-registry/2 record attests; it is
	// the zero value in /1 records, and a record with a non-zero one is
	// written as /2.
	Attested LogAttestation
}

// LogAttestation is what a registry attests about a document in its log
// beside the bytes: who published it and, for a deprecation, what
// replaces it. Written as one JSON object, keys in this order, empty
// ones left out.
type LogAttestation struct {
	Publisher            string `json:"publisher,omitempty"`
	PublisherDisplayName string `json:"publisherDisplayName,omitempty"`
	PublisherDomain      string `json:"publisherDomain,omitempty"` // verified domain, if any
	ReplacedBy           string `json:"replacedBy,omitempty"`      // lower-case hex SHA-1
}

// FormatLogRecord writes a record's text: one field per line, UTF-8,
// ending in a newline. A status change adds the new status and the reason
// as a JSON string, so the reason is one line (never blank) whatever it
// holds. The time is kept to the microsecond.
func FormatLogRecord(r LogRecord) ([]byte, error) {
	if !logWord.MatchString(r.Event) {
		return nil, ErrBadLogRecord.With(fmt.Sprintf("%q is not an event name", r.Event))
	}
	if r.Attested.ReplacedBy != "" {
		if d, err := ParseDigest(r.Attested.ReplacedBy); err != nil || d.Hex() != r.Attested.ReplacedBy {
			return nil, ErrBadLogRecord.With("a replacement is named by its lower-case hex SHA-1")
		}
	}
	version := LogRecordVersion
	if r.Attested != (LogAttestation{}) {
		version = LogRecordVersion2
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\n%s\n%s\n%s\n%d\n%s\n", version, r.Event, r.Digest.Hex(),
		hex.EncodeToString(r.SHA256[:]), r.Size, r.Time.UTC().Truncate(time.Microsecond).Format(time.RFC3339Nano))
	if version == LogRecordVersion2 {
		line, err := compactJSON(r.Attested)
		if err != nil {
			return nil, err
		}
		b.WriteString(line + "\n")
	}
	if r.Event == LogEventPublish {
		return b.Bytes(), nil
	}
	if !logWord.MatchString(r.Status) {
		return nil, ErrBadLogRecord.With(fmt.Sprintf("%q is not a status name", r.Status))
	}
	// Invalid UTF-8 becomes U+FFFD here, so the text reads back to itself.
	reason, err := quoteLine(strings.ToValidUTF8(r.Reason, "\uFFFD"))
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(&b, "%s\n%s\n", r.Status, reason)
	return b.Bytes(), nil
}

// quoteLine is s as a JSON string without HTML escaping.
func quoteLine(s string) (string, error) { return compactJSON(s) }

// compactJSON is v as one line of JSON without HTML escaping.
func compactJSON(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// ParseLogRecord reads record text written by FormatLogRecord.
func ParseLogRecord(text []byte) (LogRecord, error) {
	if _, err := tlog.FormatRecord(0, text); err != nil {
		return LogRecord{}, ErrBadLogRecord.With("the record is not valid tlog record text (UTF-8 lines without control characters, ending in a newline)")
	}
	lines := strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")
	var r LogRecord
	if len(lines) > 0 && lines[0] == LogRecordVersion2 && len(lines) >= 7 {
		if err := decodeAttestation(lines[6], &r.Attested); err != nil {
			return LogRecord{}, err
		}
		lines = append(lines[:6:6], lines[7:]...)
	} else if len(lines) > 0 && lines[0] != LogRecordVersion {
		return LogRecord{}, ErrBadLogRecord
	}
	if len(lines) != 6 && len(lines) != 8 {
		return LogRecord{}, ErrBadLogRecord
	}
	r.Event = lines[1]
	if !logWord.MatchString(r.Event) || (r.Event == LogEventPublish) != (len(lines) == 6) {
		return LogRecord{}, ErrBadLogRecord.With("the record's event does not match its fields")
	}
	d, err := ParseDigest(lines[2])
	if err != nil || len(lines[2]) != 40 || lines[2] != d.Hex() {
		return LogRecord{}, ErrBadLogRecord.With("the record's SHA-1 is not lower-case hex")
	}
	r.Digest = d
	sum, err := hex.DecodeString(lines[3])
	if err != nil || len(sum) != 32 || lines[3] != hex.EncodeToString(sum) {
		return LogRecord{}, ErrBadLogRecord.With("the record's SHA-256 is not lower-case hex")
	}
	copy(r.SHA256[:], sum)
	if r.Size, err = strconv.Atoi(lines[4]); err != nil || r.Size < 0 || strconv.Itoa(r.Size) != lines[4] {
		return LogRecord{}, ErrBadLogRecord.With("the record's size is not a number")
	}
	if r.Time, err = time.Parse(time.RFC3339Nano, lines[5]); err != nil {
		return LogRecord{}, ErrBadLogRecord.With("the record's time is not RFC 3339")
	}
	if len(lines) == 8 {
		r.Status = lines[6]
		if !logWord.MatchString(r.Status) || json.Unmarshal([]byte(lines[7]), &r.Reason) != nil || !strings.HasPrefix(lines[7], `"`) {
			return LogRecord{}, ErrBadLogRecord.With("the record's status or reason is malformed")
		}
	}
	// One text per record: a record that does not read back to exactly
	// its text (another spelling of the same fields) is refused, so no
	// two log entries can claim one event.
	again, err := FormatLogRecord(r)
	if err != nil || !bytes.Equal(again, text) {
		return LogRecord{}, ErrBadLogRecord.With("the record is not in its one canonical form")
	}
	return r, nil
}

// decodeAttestation reads a /2 record's attestation line: a JSON object
// of LogAttestation's keys only.
func decodeAttestation(line string, a *LogAttestation) error {
	dec := json.NewDecoder(strings.NewReader(line))
	dec.DisallowUnknownFields()
	if !strings.HasPrefix(line, "{") || dec.Decode(a) != nil || dec.More() || *a == (LogAttestation{}) {
		return ErrBadLogRecord.With("the record's attestation line is not a JSON object of known keys")
	}
	return nil
}
