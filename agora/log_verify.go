package agora

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"strings"

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
	// ErrLogUnreadable says the log could not be read (network, a server
	// error, an answer of the wrong shape): nothing was proved either
	// way, and trying again may succeed. It is never a fork.
	ErrLogUnreadable = newError(KindUnavailable, "log_unreadable", "the registry's log could not be read; nothing was proved either way")
)

// EmptyLogRoot is the root of the empty tree (RFC 6962: SHA-256 of
// nothing), which a checkpoint of size 0 carries. Registries before it
// signed 32 zero bytes there; both are read as the empty tree.
var EmptyLogRoot, _ = tlog.TreeHash(0, nil)

// emptyRoot reports whether h is a root the empty tree may be signed with.
func emptyRoot(h tlog.Hash) bool { return h == EmptyLogRoot || h == tlog.Hash{} }

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
	if a.N == 0 {
		// A fresh log's first checkpoint commits to no record, so every
		// tree extends it (tlog proves only n ≥ 1); it must carry the
		// empty tree's root (or the zeros older registries signed).
		if !emptyRoot(a.Hash) {
			return ErrLogFork.With(fmt.Sprintf("a checkpoint of the empty tree has root %s, not the empty tree's %s", a.Hash, EmptyLogRoot))
		}
		if b.N == 0 && !emptyRoot(b.Hash) {
			return ErrLogFork.With(fmt.Sprintf("a checkpoint of the empty tree has root %s, not the empty tree's %s", b.Hash, EmptyLogRoot))
		}
		return nil
	}
	if a.N == b.N {
		if a.Hash != b.Hash {
			return ErrLogFork.With(fmt.Sprintf("two checkpoints of size %d have different roots (%s, %s)", a.N, a.Hash, b.Hash))
		}
		return nil
	}
	tiles := v.tiles(ctx)
	p, err := tlog.ProveTree(b.N, a.N, tlog.TileHashReader(b.Tree, tiles))
	if err := tiles.failed(); err != nil {
		return err
	}
	if err == nil {
		err = tlog.CheckTree(p, b.N, b.Hash, a.N, a.Hash)
	}
	if err != nil {
		return ErrLogFork.With(fmt.Sprintf("the tree of size %d (%s) does not extend the tree of size %d (%s): %v (proof: %s)", b.N, b.Hash, a.N, a.Hash, err, formatProof(p)))
	}
	return nil
}

// formatProof lists a proof's hashes (the evidence of a fork).
func formatProof(p []tlog.Hash) string {
	if len(p) == 0 {
		return "none could be built from the tiles served"
	}
	s := make([]string, len(p))
	for i, h := range p {
		s[i] = h.String()
	}
	return strings.Join(s, " ")
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
		return LogProof{}, ErrLogUnreadable.With("the lookup answer is not a record and a checkpoint: " + err.Error())
	}
	rec, err := ParseLogRecord(text)
	if err != nil {
		return LogProof{}, wrapError(ErrLogUnreadable.Kind, ErrLogUnreadable.Code, "the lookup answered a malformed record", err)
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
	tiles := v.tiles(ctx)
	p, err := tlog.ProveRecord(cp.N, id, tlog.TileHashReader(cp.Tree, tiles))
	if err := tiles.failed(); err != nil {
		return LogProof{}, err
	}
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
	tiles := v.tiles(ctx)
	hs, err := tlog.TileHashReader(tree, tiles).ReadHashes(idx)
	if err := tiles.failed(); err != nil {
		return nil, err
	}
	if err != nil {
		return nil, ErrLogNotProved.With(fmt.Sprintf("the log's tiles for records %d to %d do not match its checkpoint: %v", from, to, err))
	}
	return hs, nil
}

// tiles reads tiles from the source; tlog.TileHashReader checks every
// tile it reads against the tree it was made for.
func (v *LogVerifier) tiles(ctx context.Context) *logTiles { return &logTiles{ctx: ctx, src: v.src} }

// logTiles reads tiles and remembers why a read failed, so a proof that
// could not be built (a 503, a timeout, a tile of the wrong size) is told
// apart from one that was built and failed: only the second proves
// anything about the log.
type logTiles struct {
	ctx context.Context
	src LogSource
	err error
}

func (*logTiles) Height() int { return LogTileHeight }

func (r *logTiles) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	for i, t := range tiles {
		b, err := r.src.LogTile(r.ctx, t.Path())
		if err == nil && len(b) != t.W*tlog.HashSize {
			err = fmt.Errorf("tile %s is %d bytes, not %d", t.Path(), len(b), t.W*tlog.HashSize)
		}
		if err != nil {
			r.err = wrapError(ErrLogUnreadable.Kind, ErrLogUnreadable.Code, fmt.Sprintf("reading the log's tile %s: %v", t.Path(), err), err)
			return nil, r.err
		}
		out[i] = b
	}
	return out, nil
}

func (*logTiles) SaveTiles([]tlog.Tile, [][]byte) {}

// failed is the read error of the last proof, if any.
func (r *logTiles) failed() error { return r.err }

// LogRecords reads the records of indexes [from, to) of a verified tree
// from data tiles (sum.golang.org's tile/8/data/N) and checks each
// against the record hashes the tree's tiles prove: a record the tree does
// not hold is ErrLogNotProved; an answer that could not be read or is not
// records at all is ErrLogUnreadable.
func (v *LogVerifier) LogRecords(ctx context.Context, tree tlog.Tree, from, to int64) ([][]byte, error) {
	if from < 0 || to > tree.N || from > to {
		return nil, ErrLogNotProved.With(fmt.Sprintf("records %d to %d are not in the tree of size %d", from, to, tree.N))
	}
	hashes, err := v.RecordHashes(ctx, tree, from, to)
	if err != nil {
		return nil, err
	}
	out := make([][]byte, 0, to-from)
	for i := from; i < to; {
		t := tlog.Tile{H: LogTileHeight, L: -1, N: i >> LogTileHeight}
		if end := t.N<<LogTileHeight + 1<<LogTileHeight; end <= tree.N {
			t.W = 1 << LogTileHeight // a full tile: the one a server caches
		} else {
			t.W = int(tree.N - t.N<<LogTileHeight)
		}
		data, err := v.src.LogTile(ctx, t.Path())
		if err != nil {
			return nil, wrapError(ErrLogUnreadable.Kind, ErrLogUnreadable.Code, fmt.Sprintf("reading the log's data tile %s: %v", t.Path(), err), err)
		}
		texts, err := splitDataTile(data, t.W)
		if err != nil {
			return nil, ErrLogUnreadable.With(fmt.Sprintf("data tile %s: %v", t.Path(), err))
		}
		for j, text := range texts {
			idx := t.N<<LogTileHeight + int64(j)
			if idx < i || idx >= to {
				continue
			}
			if tlog.RecordHash(text) != hashes[idx-from] {
				return nil, ErrLogNotProved.With(fmt.Sprintf("record %d served in %s is not the one the signed tree of size %d holds", idx, t.Path(), tree.N))
			}
			out = append(out, text)
		}
		i = t.N<<LogTileHeight + int64(t.W)
	}
	return out, nil
}

// splitDataTile splits a data tile into its w records: each record's
// text (which ends in a newline and holds no blank line) followed by a
// blank line, as sum.golang.org serves them.
func splitDataTile(data []byte, w int) ([][]byte, error) {
	out := make([][]byte, 0, w)
	for len(data) > 0 {
		end := bytes.Index(data, []byte("\n\n"))
		if end < 0 {
			return nil, fmt.Errorf("record %d does not end in a blank line", len(out))
		}
		out = append(out, data[:end+1])
		data = data[end+2:]
	}
	if len(out) != w {
		return nil, fmt.Errorf("%d records, not %d", len(out), w)
	}
	return out, nil
}
