package agora

import (
	"context"
	"crypto/sha256"
	"fmt"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// LogTileHeight is the height of a registry's hash tiles (sum.golang.org's).
const LogTileHeight = 8

// Errors of log verification.
var (
	ErrLogFork        = newError(KindConflict, "log_fork", "the log is inconsistent with a checkpoint seen before: it was forked or rewritten")
	ErrLogNotProved   = newError(KindInvalid, "log_proof_failed", "the registry's log does not prove what it claims")
	ErrBadVerifierKey = newError(KindInvalid, "bad_verifier_key", "the log's verifier key is not a note verifier key (name+hash+key)")
)

const errLogRecordNotDoc = "the log's record of %s is a %s of %d bytes with SHA-256 %x, not these %d bytes"

// LogSource is a registry's log as a client reads it (Registry over HTTP);
// nothing it returns is trusted.
type LogSource interface {
	LogCheckpoint(ctx context.Context) ([]byte, error)
	LogTile(ctx context.Context, path string) ([]byte, error)
	LogLookup(ctx context.Context, d Digest) ([]byte, error)
}

// LogVerifier checks a registry's log against its pinned verifier key:
// signed checkpoints (golang.org/x/mod/sumdb/note), inclusion of records
// and consistency of trees with tiles (golang.org/x/mod/sumdb/tlog).
type LogVerifier struct {
	src LogSource
	key note.Verifier
}

// NewLogVerifier reads a note verifier key (origin+hash+base64).
func NewLogVerifier(src LogSource, vkey string) (*LogVerifier, error) {
	v, err := note.NewVerifier(vkey)
	if err != nil {
		return nil, wrapError(ErrBadVerifierKey.Kind, ErrBadVerifierKey.Code, ErrBadVerifierKey.Message, err)
	}
	return &LogVerifier{src: src, key: v}, nil
}

// Open verifies a signed checkpoint.
func (v *LogVerifier) Open(msg []byte) (LogCheckpoint, error) { return OpenLogCheckpoint(msg, v.key) }

// Latest fetches and verifies the latest checkpoint, returning it parsed
// and signed.
func (v *LogVerifier) Latest(ctx context.Context) (LogCheckpoint, []byte, error) {
	msg, err := v.src.LogCheckpoint(ctx)
	if err != nil {
		return LogCheckpoint{}, nil, err
	}
	c, err := v.Open(msg)
	return c, msg, err
}

// Consistent proves with tiles that the larger of a and b extends the
// other; a failure is ErrLogFork.
func (v *LogVerifier) Consistent(ctx context.Context, a, b LogCheckpoint) error {
	if a.N > b.N {
		a, b = b, a
	}
	if a.N == b.N {
		if a.Hash != b.Hash {
			return ErrLogFork.With(fmt.Sprintf("two checkpoints of size %d have different roots (%s, %s)", a.N, a.Hash, b.Hash))
		}
		return nil
	}
	if a.N == 0 {
		// A fresh log's first checkpoint commits to no record, so every tree
		// extends it (tlog proves only n ≥ 1). Its root is not checked: this
		// registry signs zeros there, RFC 6962 the hash of nothing.
		return nil
	}
	thr := tlog.TileHashReader(b.Tree, v.tiles(ctx))
	p, err := tlog.ProveTree(b.N, a.N, thr)
	if err == nil {
		err = tlog.CheckTree(p, b.N, b.Hash, a.N, a.Hash)
	}
	if err != nil {
		return ErrLogFork.With(fmt.Sprintf("the tree of size %d (%s) does not extend the tree of size %d (%s): %v", b.N, b.Hash, a.N, a.Hash, err))
	}
	return nil
}

// LogProof is a document's first record (its publish), proved included in
// a signed tree.
type LogProof struct {
	Index  int64
	Record LogRecord
	Text   []byte
	// Checkpoint is the verified checkpoint the lookup came with, and
	// Signed its signed note.
	Checkpoint LogCheckpoint
	Signed     []byte
}

// Prove looks a document up (/log/lookup) and proves its record included
// in the lookup's checkpoint, with tiles.
func (v *LogVerifier) Prove(ctx context.Context, d Digest) (LogProof, error) {
	msg, err := v.src.LogLookup(ctx, d)
	if err != nil {
		return LogProof{}, err
	}
	id, text, rest, err := tlog.ParseRecord(msg)
	if err != nil {
		return LogProof{}, ErrLogNotProved.With("the lookup answer is not a record and a checkpoint: " + err.Error())
	}
	rec, err := ParseLogRecord(text)
	if err != nil {
		return LogProof{}, err
	}
	if rec.Digest != d {
		return LogProof{}, ErrLogNotProved.With(fmt.Sprintf("the lookup of %s answered the record of %s", d.Hex(), rec.Digest.Hex()))
	}
	cp, err := v.Open(rest)
	if err != nil {
		return LogProof{}, err
	}
	if id < 0 || id >= cp.N {
		return LogProof{}, ErrLogNotProved.With(fmt.Sprintf("record %d is outside the checkpoint's tree of size %d", id, cp.N))
	}
	thr := tlog.TileHashReader(cp.Tree, v.tiles(ctx))
	p, err := tlog.ProveRecord(cp.N, id, thr)
	if err == nil {
		err = tlog.CheckRecord(p, cp.N, cp.Hash, id, tlog.RecordHash(text))
	}
	if err != nil {
		return LogProof{}, ErrLogNotProved.With(fmt.Sprintf("record %d of %s is not proved included in the tree of size %d: %v", id, d.Hex(), cp.N, err))
	}
	return LogProof{Index: id, Record: rec, Text: text, Checkpoint: cp, Signed: rest}, nil
}

// ProveDocument is Prove for a document in hand: the proved record must be
// its publish, with its SHA-256 and size (the SHA-1 alone, which the
// caller has checked, is not collision-proof).
func (v *LogVerifier) ProveDocument(ctx context.Context, d Digest, doc []byte) (LogProof, error) {
	p, err := v.Prove(ctx, d)
	if err != nil {
		return p, err
	}
	sum := sha256.Sum256(doc)
	if r := p.Record; r.Event != LogEventPublish || r.SHA256 != sum || r.Size != len(doc) {
		return LogProof{}, ErrLogNotProved.With(fmt.Sprintf(errLogRecordNotDoc, d.Hex(), r.Event, r.Size, r.SHA256, len(doc)))
	}
	return p, nil
}

// RecordHashes reads the record hashes of indexes [from, to) of a verified
// tree through tiles that tlog.TileHashReader checks against its root.
func (v *LogVerifier) RecordHashes(ctx context.Context, tree tlog.Tree, from, to int64) ([]tlog.Hash, error) {
	idx := make([]int64, 0, to-from)
	for i := from; i < to; i++ {
		idx = append(idx, tlog.StoredHashIndex(0, i))
	}
	hs, err := tlog.TileHashReader(tree, v.tiles(ctx)).ReadHashes(idx)
	if err != nil {
		return nil, ErrLogNotProved.With(fmt.Sprintf("the log's tiles for records %d to %d do not match its checkpoint: %v", from, to, err))
	}
	return hs, nil
}

// tiles reads tiles from the source; tlog.TileHashReader checks every
// tile it reads against the tree it was made for.
func (v *LogVerifier) tiles(ctx context.Context) tlog.TileReader { return logTiles{ctx, v.src} }

type logTiles struct {
	ctx context.Context
	src LogSource
}

func (logTiles) Height() int { return LogTileHeight }

func (r logTiles) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	for i, t := range tiles {
		b, err := r.src.LogTile(r.ctx, t.Path())
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

func (logTiles) SaveTiles([]tlog.Tile, [][]byte) {}
