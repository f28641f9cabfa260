package translog

import (
	"context"
	"fmt"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/protocol"
)

// Errors of verification.
var (
	ErrFork      = apperr.New(apperr.Conflict, "log_fork", "the log is inconsistent with a checkpoint seen before: it was forked or rewritten")
	ErrNotProved = apperr.New(apperr.Invalid, "log_proof_failed", "the registry's log does not prove what it claims")
)

// Source is a registry's log as a client reads it (over HTTP); nothing it
// returns is trusted.
type Source interface {
	LogCheckpoint(ctx context.Context) ([]byte, error)
	LogTile(ctx context.Context, path string) ([]byte, error)
	LogLookup(ctx context.Context, d protocol.Digest) ([]byte, error)
}

// Verifier checks a registry's log against its verifier key.
type Verifier struct {
	src Source
	key note.Verifier
}

// NewVerifier reads a note verifier key (origin+hash+base64).
func NewVerifier(src Source, vkey string) (*Verifier, error) {
	v, err := note.NewVerifier(vkey)
	if err != nil {
		return nil, apperr.Wrap(apperr.Invalid, "bad_verifier_key", "the log's verifier key is not a note verifier key (name+hash+key)", err)
	}
	return &Verifier{src: src, key: v}, nil
}

// Open verifies a signed checkpoint.
func (v *Verifier) Open(msg []byte) (Checkpoint, error) { return OpenCheckpoint(msg, v.key) }

// Latest fetches and verifies the latest checkpoint.
func (v *Verifier) Latest(ctx context.Context) (Checkpoint, []byte, error) {
	msg, err := v.src.LogCheckpoint(ctx)
	if err != nil {
		return Checkpoint{}, nil, err
	}
	c, err := v.Open(msg)
	return c, msg, err
}

// Consistent proves with tiles that the larger of a and b extends the
// other; a failure is ErrFork.
func (v *Verifier) Consistent(ctx context.Context, a, b Checkpoint) error {
	if a.N > b.N {
		a, b = b, a
	}
	if a.N == b.N {
		if a.Hash != b.Hash {
			return ErrFork.With(fmt.Sprintf("two checkpoints of size %d have different roots (%s, %s)", a.N, a.Hash, b.Hash))
		}
		return nil
	}
	thr := tlog.TileHashReader(b.Tree, v.tiles(ctx))
	p, err := tlog.ProveTree(b.N, a.N, thr)
	if err == nil {
		err = tlog.CheckTree(p, b.N, b.Hash, a.N, a.Hash)
	}
	if err != nil {
		return ErrFork.With(fmt.Sprintf("the tree of size %d (%s) does not extend the tree of size %d (%s): %v", b.N, b.Hash, a.N, a.Hash, err))
	}
	return nil
}

// Proved is a document's publish record, proved included in a tree.
type Proved struct {
	Index  int64
	Record Record
	Text   []byte
	// Checkpoint is the checkpoint the lookup came with (verified).
	Checkpoint Checkpoint
	Signed     []byte
}

// Prove looks a document up and proves its record included in the
// lookup's checkpoint, with tiles.
func (v *Verifier) Prove(ctx context.Context, d protocol.Digest) (Proved, error) {
	msg, err := v.src.LogLookup(ctx, d)
	if err != nil {
		return Proved{}, err
	}
	id, text, rest, err := tlog.ParseRecord(msg)
	if err != nil {
		return Proved{}, ErrNotProved.With("the lookup answer is not a record and a checkpoint: " + err.Error())
	}
	rec, err := ParseRecord(text)
	if err != nil {
		return Proved{}, err
	}
	if rec.Digest != d {
		return Proved{}, ErrNotProved.With(fmt.Sprintf("the lookup of %s answered the record of %s", d.Hex(), rec.Digest.Hex()))
	}
	cp, err := v.Open(rest)
	if err != nil {
		return Proved{}, err
	}
	if id < 0 || id >= cp.N {
		return Proved{}, ErrNotProved.With(fmt.Sprintf("record %d is outside the checkpoint's tree of size %d", id, cp.N))
	}
	thr := tlog.TileHashReader(cp.Tree, v.tiles(ctx))
	p, err := tlog.ProveRecord(cp.N, id, thr)
	if err == nil {
		err = tlog.CheckRecord(p, cp.N, cp.Hash, id, tlog.RecordHash(text))
	}
	if err != nil {
		return Proved{}, ErrNotProved.With(fmt.Sprintf("record %d of %s is not proved included in the tree of size %d: %v", id, d.Hex(), cp.N, err))
	}
	return Proved{Index: id, Record: rec, Text: text, Checkpoint: cp, Signed: rest}, nil
}

// tiles reads tiles from the source; tlog.TileHashReader checks every
// tile it reads against the tree it was made for.
func (v *Verifier) tiles(ctx context.Context) tlog.TileReader { return tileReader{ctx, v.src} }

type tileReader struct {
	ctx context.Context
	src Source
}

func (tileReader) Height() int { return TileHeight }

func (r tileReader) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
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

func (tileReader) SaveTiles([]tlog.Tile, [][]byte) {}

// RecordHashes reads the record hashes of indexes [from, to) of a verified
// tree through tiles that tlog.TileHashReader checks against its root.
func (v *Verifier) RecordHashes(ctx context.Context, tree tlog.Tree, from, to int64) ([]tlog.Hash, error) {
	idx := make([]int64, 0, to-from)
	for i := from; i < to; i++ {
		idx = append(idx, tlog.StoredHashIndex(0, i))
	}
	hs, err := tlog.TileHashReader(tree, v.tiles(ctx)).ReadHashes(idx)
	if err != nil {
		return nil, ErrNotProved.With(fmt.Sprintf("the log's tiles for records %d to %d do not match its checkpoint: %v", from, to, err))
	}
	return hs, nil
}
