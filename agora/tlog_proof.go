package agora

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/tlog"
)

// A c2sp.org/tlog-proof@v1 proof is a document's log record (its "extra"),
// the record's index, its inclusion proof and the (cosigned) checkpoint the
// proof is against: what an agent needs to believe a document offline.

// TLogProofHeader is the first line of a proof.
const TLogProofHeader = "c2sp.org/tlog-proof@v1"

// MaxTLogProofBytes bounds a proof: a record of a few hundred bytes, at
// most 62 hashes (a tree of 2^62 records) and a checkpoint with at most
// 100 signature lines (note's limit) take far less.
const MaxTLogProofBytes = 64 << 10

// maxTLogProofHashes is the longest inclusion proof of a tree of at most
// MaxLogTreeSize records.
const maxTLogProofHashes = 62

// ErrBadTLogProof refuses a proof that is not of the c2sp.org/tlog-proof@v1
// form.
var ErrBadTLogProof = newError(KindInvalid, "bad_tlog_proof", "the proof is not a c2sp.org/tlog-proof@v1 proof")

// TLogProof is a parsed c2sp.org/tlog-proof@v1 proof; nothing in it is
// verified.
type TLogProof struct {
	Extra      []byte // nil when the proof has no extra line
	Index      int64
	Hashes     tlog.RecordProof
	Checkpoint []byte // the signed note, verbatim
}

// Format writes the proof.
func (p TLogProof) Format() []byte {
	var b bytes.Buffer
	b.WriteString(TLogProofHeader + "\n")
	if p.Extra != nil {
		b.WriteString("extra " + base64.StdEncoding.EncodeToString(p.Extra) + "\n")
	}
	fmt.Fprintf(&b, "index %d\n", p.Index)
	for _, h := range p.Hashes {
		b.WriteString(base64.StdEncoding.EncodeToString(h[:]) + "\n")
	}
	b.WriteString("\n")
	b.Write(p.Checkpoint)
	return b.Bytes()
}

// ParseTLogProof reads a proof strictly: at most MaxTLogProofBytes, the
// header, an optional extra line, the index (canonical decimal, within
// MaxLogTreeSize), at most 62 canonical base64 SHA-256 hashes, a blank
// line, then the checkpoint (not verified here).
func ParseTLogProof(b []byte) (TLogProof, error) {
	if len(b) > MaxTLogProofBytes {
		return TLogProof{}, ErrBadTLogProof.With(fmt.Sprintf("the proof is %d bytes, more than the %d a proof can need", len(b), MaxTLogProofBytes))
	}
	rest := string(b)
	line := func() (string, bool) {
		l, r, ok := strings.Cut(rest, "\n")
		rest = r
		return l, ok
	}
	if l, ok := line(); !ok || l != TLogProofHeader {
		return TLogProof{}, ErrBadTLogProof.With("the first line is not " + TLogProofHeader)
	}
	var p TLogProof
	l, ok := line()
	if e, found := strings.CutPrefix(l, "extra "); ok && found {
		extra, err := base64.StdEncoding.Strict().DecodeString(e)
		if err != nil || base64.StdEncoding.EncodeToString(extra) != e {
			return TLogProof{}, ErrBadTLogProof.With("the extra line is not canonical base64")
		}
		p.Extra = extra
		l, ok = line()
	}
	idx, found := strings.CutPrefix(l, "index ")
	n, err := strconv.ParseInt(idx, 10, 64)
	if !ok || !found || err != nil || n < 0 || n >= MaxLogTreeSize || strconv.FormatInt(n, 10) != idx {
		return TLogProof{}, ErrBadTLogProof.With("no index line with a decimal record index")
	}
	p.Index = n
	for {
		l, ok := line()
		if !ok {
			return TLogProof{}, ErrBadTLogProof.With("the proof ends before the blank line and the checkpoint")
		}
		if l == "" {
			break
		}
		if len(p.Hashes) == maxTLogProofHashes {
			return TLogProof{}, ErrBadTLogProof.With(fmt.Sprintf("more than %d inclusion proof hashes", maxTLogProofHashes))
		}
		h, err := base64.StdEncoding.Strict().DecodeString(l)
		if err != nil || len(h) != tlog.HashSize || base64.StdEncoding.EncodeToString(h) != l {
			return TLogProof{}, ErrBadTLogProof.With(fmt.Sprintf("inclusion proof line %d is not a base64 SHA-256 hash", len(p.Hashes)+1))
		}
		p.Hashes = append(p.Hashes, tlog.Hash(h))
	}
	if rest == "" {
		return TLogProof{}, ErrBadTLogProof.With("the proof has no checkpoint")
	}
	p.Checkpoint = []byte(rest)
	return p, nil
}

// ProvedDocument is what a verified proof establishes: the document's
// publish record at Index of the cosigned checkpoint's tree.
type ProvedDocument struct {
	Index      int64
	Record     LogRecord
	Checkpoint CosignedCheckpoint
}

// VerifyDocumentProof checks a c2sp.org/tlog-proof@v1 proof of doc offline
// against the policies (one per trusted log, picked by the checkpoint's
// origin): the checkpoint must meet its policy (log signature, witness
// quorum); the extra must be a publish record of doc (its SHA-1, SHA-256
// and size); and that record must be the leaf at the proof's index,
// proved by the inclusion hashes under the checkpoint's root.
//
// Errors: ErrBadTLogProof (not a proof), the checkpoint's (ErrBadLogCheckpoint,
// ErrBadCosignature, ErrNoQuorum, or ErrUnproved for a log no policy
// names), or ErrLogNotProved when the proof, against a checkpoint that met
// the policy, does not prove doc.
func VerifyDocumentProof(proof, doc []byte, policies ...WitnessPolicy) (ProvedDocument, error) {
	p, err := ParseTLogProof(proof)
	if err != nil {
		return ProvedDocument{}, err
	}
	origin, _, _ := strings.Cut(string(p.Checkpoint), "\n")
	var policy *WitnessPolicy
	for i := range policies {
		if policies[i].Origin() == origin {
			policy = &policies[i]
			break
		}
	}
	if policy == nil {
		return ProvedDocument{}, ErrUnproved.With(fmt.Sprintf("the proof is against log %q, which is not trusted", origin))
	}
	cp, err := policy.Open(p.Checkpoint)
	if err != nil {
		return ProvedDocument{}, err
	}
	sums, err := Hash(doc)
	if err != nil {
		return ProvedDocument{}, err
	}
	rec, err := ParseLogRecord(p.Extra)
	if err != nil {
		return ProvedDocument{}, ErrLogNotProved.With("the proof's extra is not a log record: " + errText(err))
	}
	if rec.Event != LogEventPublish || rec.Digest != sums.SHA1 {
		return ProvedDocument{}, ErrLogNotProved.With(fmt.Sprintf("the proof's record is a %s of %s, not the publish of %s", rec.Event, rec.Digest.Hex(), sums.SHA1.Hex()))
	}
	if p.Index >= cp.N {
		return ProvedDocument{}, ErrLogNotProved.With(fmt.Sprintf("record %d is outside the checkpoint's tree of size %d", p.Index, cp.N))
	}
	if err := tlog.CheckRecord(p.Hashes, cp.N, cp.Hash, p.Index, tlog.RecordHash(p.Extra)); err != nil {
		return ProvedDocument{}, ErrLogNotProved.With(fmt.Sprintf("the record is not proved to be leaf %d of the tree of size %d: %v", p.Index, cp.N, err))
	}
	if rec.SHA256 != sums.SHA256 || rec.Size != len(doc) {
		return ProvedDocument{}, ErrLogNotProved.With(fmt.Sprintf(errLogRecordNotDoc, sums.SHA1.Hex(), rec.Event, rec.Size, rec.SHA256, len(doc)))
	}
	return ProvedDocument{Index: p.Index, Record: rec, Checkpoint: cp}, nil
}
