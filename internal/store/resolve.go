package store

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
)

// CheckResolveSize refuses a batch larger than MaxResolve, with the same
// message on every engine.
func CheckResolveSize(n int) error {
	if n > MaxResolve {
		return ErrInvalid.With(fmt.Sprintf("at most %d hashes can be resolved at once; %d were asked", MaxResolve, n))
	}
	return nil
}

// ResolveBatch is a batch being answered by an engine. The engine sends
// the digests in probe order (Probe(0), Probe(1), …), sorted by digest:
// its digest index is then walked from left to right, so each index page
// is read once per batch rather than once per probe landing on it. Its query returns
// each found row's index in that order, which Found maps back to the
// position asked, so no map from digest to answer is built.
type ResolveBatch struct {
	answers []Resolution
	order   []int // probe order: positions in answers, by digest
}

// NewResolveBatch starts a batch: every digest in the order asked (a
// duplicate answered each time), none found yet.
func NewResolveBatch(ds []protocol.Digest) ResolveBatch {
	b := ResolveBatch{answers: make([]Resolution, len(ds)), order: make([]int, len(ds))}
	for i, d := range ds {
		b.answers[i].Digest = d
		b.order[i] = i
	}
	slices.SortFunc(b.order, func(x, y int) int { return bytes.Compare(ds[x][:], ds[y][:]) })
	return b
}

// Len is the number of digests asked.
func (b ResolveBatch) Len() int { return len(b.answers) }

// Probe is the i-th digest to send.
func (b ResolveBatch) Probe(i int) *protocol.Digest { return &b.answers[b.order[i]].Digest }

// FoundWith records the row an engine found for Probe(i) (its digest is
// the probe's). An index outside the batch is the engine's bug, reported
// rather than a panic.
func (b ResolveBatch) FoundWith(i int64, r Resolution) error {
	if i < 0 || i >= int64(len(b.order)) {
		return fmt.Errorf("store: resolve row for probe %d of a batch of %d", i, len(b.order))
	}
	a := &b.answers[b.order[i]]
	r.Digest, r.Found = a.Digest, true
	if r.Withdrawn {
		r.Status = entity.StatusWithdrawn
	}
	*a = r
	return nil
}

// ResolveRows is what both engines' drivers return for a query (pgx.Rows,
// *sql.Rows).
type ResolveRows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// ReadRows records every (probe index, title, withdrawn, status, message,
// replacement, publisher) row; firstProbe is the index the engine gives the first
// probe (1 for SQL ordinals, 0 for keys counted from zero). The
// replacement is a digest's 20 bytes or its 40 hex digits (as each engine
// stores it), or NULL.
func (b ResolveBatch) ReadRows(rows ResolveRows, firstProbe int64) error {
	var (
		probe       int64
		r           Resolution
		status      string
		replacement []byte
	)
	for rows.Next() {
		replacement = replacement[:0]
		if err := rows.Scan(&probe, &r.Title, &r.Withdrawn, &status, &r.Message, &replacement, &r.Publisher); err != nil {
			return err
		}
		r.Status, r.Replacement = entity.Status(status), nil
		if len(replacement) > 0 {
			d, err := StoredDigest(replacement)
			if err != nil {
				return err
			}
			r.Replacement = &d
		}
		if err := b.FoundWith(probe-firstProbe, r); err != nil {
			return err
		}
	}
	return rows.Err()
}

// StoredDigest reads a digest column: 20 bytes (PostgreSQL's bytea) or 40
// hex digits (SQLite's text).
func StoredDigest(b []byte) (protocol.Digest, error) {
	switch len(b) {
	case protocol.DigestSize:
		return protocol.Digest(b), nil
	case 2 * protocol.DigestSize:
		return protocol.ParseDigest(string(b))
	}
	return protocol.Digest{}, fmt.Errorf("store: a stored digest of %d bytes", len(b))
}

// Answers are the batch's answers in the order asked.
func (b ResolveBatch) Answers() []Resolution { return b.answers }
