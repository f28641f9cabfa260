package translog

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// Errors of the log's read side.
var (
	ErrBadTile      = apperr.New(apperr.Invalid, "bad_tile_path", "not a tile path of this log: tile/8/L/N[.p/W] (tlog.Tile.Path, height 8), tile/L/N[.p/W] or tile/entries/N[.p/W] (c2sp.org/tlog-tiles)")
	ErrTileNotFound = apperr.New(apperr.NotFound, "tile_not_found", "the log has no such tile yet")
	ErrNoRecord     = apperr.New(apperr.NotFound, "record_not_found", "the log has no record with this id")
	ErrNotLogged    = apperr.New(apperr.NotFound, "not_logged", "no document with this hash is in the transparency log")
)

// Checkpoint is the latest signed tree head, with the witnesses' valid
// cosignatures of it.
func (l *Log) Checkpoint(ctx context.Context) ([]byte, error) {
	head, err := l.head(ctx)
	if err != nil {
		return nil, err
	}
	return l.served(ctx, head), nil
}

// served is head's checkpoint as served: cosigned when witnesses are set.
func (l *Log) served(ctx context.Context, head store.LogHead) []byte {
	l.mu.Lock()
	c := l.cosigner
	l.mu.Unlock()
	if c == nil {
		return head.Checkpoint
	}
	return c.cosigned(ctx, head)
}

// head reads the latest head once this process has signed it (its first
// integration, right after start, signs a fresh log or one whose key
// changed).
func (l *Log) head(ctx context.Context) (store.LogHead, error) {
	select {
	case <-l.signed:
	default:
		if _, err := l.integrateBatch(ctx); err != nil {
			return store.LogHead{}, err
		}
	}
	return l.st.LogHead(ctx)
}

// Tile answers a tile path: sum.golang.org's (tlog.Tile.Path, height
// TileHeight: tile/8/L/N, data tiles tile/8/data/N) or c2sp.org/tlog-tiles
// (tile/L/N hash tiles, the same bytes, and tile/entries/N entry
// bundles). full reports a tile of full width, whose bytes never change.
// Only tiles of the tree the signed head commits to are served.
func (l *Log) Tile(ctx context.Context, path string) (data []byte, full bool, err error) {
	t, bundle, err := parseTile(path)
	if err != nil {
		return nil, false, err
	}
	head, err := l.head(ctx)
	if err != nil {
		return nil, false, err
	}
	if !tileInTree(t, head.Size) {
		return nil, false, ErrTileNotFound
	}
	full = t.W == 1<<TileHeight
	if t.L == -1 {
		recs, err := l.tileRecords(ctx, t)
		if err != nil {
			return nil, false, err
		}
		if bundle {
			data, err = entryBundle(recs)
		} else {
			data = dataTile(recs)
		}
		return data, full, err
	}
	data, err = tlog.ReadTileData(t, tlog.HashReaderFunc(func(indexes []int64) ([]tlog.Hash, error) {
		return l.st.LogHashes(ctx, indexes)
	}))
	return data, full, err
}

// tileInTree reports whether a tree of size n holds all of tile t.
func tileInTree(t tlog.Tile, n int64) bool {
	if t.N < 0 || t.L < -1 || t.L > 63/TileHeight || t.N > n>>TileHeight {
		return false
	}
	last := t.N<<TileHeight + int64(t.W) // records (or level hashes) the tile ends at
	if t.L <= 0 {
		return last <= n
	}
	return last <= n>>(uint(t.L)*TileHeight)
}

// tileRecords reads the records of a data tile.
func (l *Log) tileRecords(ctx context.Context, t tlog.Tile) ([]store.LogRecord, error) {
	first := t.N << TileHeight
	recs, err := l.st.LogRecords(ctx, first, t.W)
	if err != nil {
		return nil, err
	}
	if len(recs) != t.W {
		return nil, ErrTileNotFound
	}
	for i, r := range recs {
		if r.Index != first+int64(i) {
			return nil, ErrTileNotFound
		}
	}
	return recs, nil
}

// dataTile is sum.golang.org's data tile: each record as tlog.FormatRecord
// writes it without its id line (its text, then a blank line).
func dataTile(recs []store.LogRecord) []byte {
	var data []byte
	for _, r := range recs {
		data = append(data, r.Text...)
		data = append(data, '\n')
	}
	return data
}

// entryBundle is c2sp.org/tlog-tiles' entry bundle: each record's text
// after its length as a big-endian uint16.
func entryBundle(recs []store.LogRecord) ([]byte, error) {
	var data []byte
	for _, r := range recs {
		if len(r.Text) > math.MaxUint16 {
			return nil, fmt.Errorf("translog: record %d is %d bytes, more than an entry bundle holds", r.Index, len(r.Text))
		}
		data = binary.BigEndian.AppendUint16(data, uint16(len(r.Text)))
		data = append(data, r.Text...)
	}
	return data, nil
}

// parseTile reads a tile path of either layout; bundle reports a
// tlog-tiles entry bundle (a data tile, L -1, in another encoding).
func parseTile(path string) (t tlog.Tile, bundle bool, err error) {
	if t, err := tlog.ParseTilePath(path); err == nil {
		if t.H != TileHeight {
			return tlog.Tile{}, false, ErrBadTile
		}
		return t, false, nil
	}
	elems := strings.Split(path, "/")
	if len(elems) < 3 || elems[0] != "tile" {
		return tlog.Tile{}, false, ErrBadTile
	}
	t = tlog.Tile{H: TileHeight, W: 1 << TileHeight}
	switch level := elems[1]; {
	case level == "entries":
		t.L, bundle = -1, true
	case len(level) == 1 && level >= "0" && level <= "9", len(level) == 2 && level[0] >= '1' && level[0] <= '6' && level[1] >= '0' && level[1] <= '9':
		t.L, _ = strconv.Atoi(level)
	default:
		return tlog.Tile{}, false, ErrBadTile
	}
	n := elems[2:]
	if len(n) >= 2 && strings.HasSuffix(n[len(n)-2], ".p") {
		w, err := strconv.Atoi(n[len(n)-1])
		if err != nil || w < 1 || w > 255 || strconv.Itoa(w) != n[len(n)-1] {
			return tlog.Tile{}, false, ErrBadTile
		}
		t.W = w
		n = n[:len(n)-1]
		n[len(n)-1] = strings.TrimSuffix(n[len(n)-1], ".p")
	}
	if len(n) > 1 && n[0] == "x000" { // one spelling per tile
		return tlog.Tile{}, false, ErrBadTile
	}
	for i, e := range n {
		if i < len(n)-1 {
			if !strings.HasPrefix(e, "x") {
				return tlog.Tile{}, false, ErrBadTile
			}
			e = e[1:]
		}
		if len(e) != 3 || strings.Trim(e, "0123456789") != "" || t.N > (math.MaxInt64-999)/1000 {
			return tlog.Tile{}, false, ErrBadTile
		}
		d, _ := strconv.Atoi(e)
		t.N = t.N*1000 + int64(d)
	}
	return t, bundle, nil
}

// Record is one record's text.
func (l *Log) Record(ctx context.Context, id int64) ([]byte, error) {
	if id < 0 {
		return nil, ErrNoRecord
	}
	recs, err := l.st.LogRecords(ctx, id, 1)
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 || recs[0].Index != id {
		return nil, ErrNoRecord
	}
	return recs[0].Text, nil
}

// Lookup answers as sum.golang.org's /lookup: the id and text of the
// document's publish record (tlog.FormatRecord), then the signed
// checkpoint, whose tree holds the record. A document whose record is
// still queued is integrated first.
func (l *Log) Lookup(ctx context.Context, d protocol.Digest) ([]byte, error) {
	id, text, err := l.publishRecord(ctx, d)
	if err != nil {
		return nil, err
	}
	msg, err := tlog.FormatRecord(id, text)
	if err != nil {
		return nil, err
	}
	head, err := l.head(ctx)
	if err != nil {
		return nil, err
	}
	return append(msg, l.served(ctx, head)...), nil
}

// publishRecord is the index and text of d's publish record; a record
// still queued is integrated first.
func (l *Log) publishRecord(ctx context.Context, d protocol.Digest) (int64, []byte, error) {
	id, err := l.st.LogLookup(ctx, d)
	if errors.Is(err, store.ErrLogPending) {
		if _, err = l.integrateBatch(ctx); err == nil {
			id, err = l.st.LogLookup(ctx, d)
		}
	}
	if errors.Is(err, store.ErrNotFound) {
		return 0, nil, ErrNotLogged
	}
	if err != nil {
		return 0, nil, err
	}
	text, err := l.Record(ctx, id)
	if err != nil {
		return 0, nil, err
	}
	// The store's index could point at another document's record (a
	// database written by hand): that is never the answer for d.
	if rec, err := agora.ParseLogRecord(text); err != nil || rec.Digest != d || rec.Event != agora.LogEventPublish {
		return 0, nil, apperr.New(apperr.Internal, "log_lookup_mismatch", "the log's index does not point at this document's publish record")
	}
	return id, text, nil
}

// ErrNotYetSigned says a document's record is logged but the checkpoint
// served does not cover it yet (a moment after publish).
var ErrNotYetSigned = apperr.New(apperr.Unavailable, "log_not_yet_signed", "the document's log record is not yet in the signed checkpoint; try again shortly")

// Proof answers a document's c2sp.org/tlog-proof@v1 proof: its publish
// record as extra, the record's index, the inclusion proof (from the
// stored hashes), and the checkpoint /log/checkpoint serves, with whatever
// cosignatures it carries; the proof is against that checkpoint's tree.
func (l *Log) Proof(ctx context.Context, d protocol.Digest) ([]byte, error) {
	id, text, err := l.publishRecord(ctx, d)
	if err != nil {
		return nil, err
	}
	signed, err := l.Checkpoint(ctx)
	if err != nil {
		return nil, err
	}
	body, _, ok := strings.Cut(string(signed), "\n\n")
	if !ok {
		return nil, fmt.Errorf("translog: the checkpoint served is not a signed note")
	}
	cp, err := agora.ParseLogCheckpoint(body + "\n")
	if err != nil {
		return nil, err
	}
	if id >= cp.N {
		return nil, ErrNotYetSigned
	}
	p, err := tlog.ProveRecord(cp.N, id, tlog.HashReaderFunc(func(indexes []int64) ([]tlog.Hash, error) {
		return l.st.LogHashes(ctx, indexes)
	}))
	if err != nil {
		return nil, err
	}
	return agora.TLogProof{Extra: text, Index: id, Hashes: p, Checkpoint: signed}.Format(), nil
}

// Change is one record of the change feed.
type Change struct {
	Index  int64     `json:"index"`
	Event  string    `json:"event"`
	Hex    string    `json:"hex"`
	Base64 string    `json:"base64"`
	SHA256 string    `json:"sha256"`
	Size   int       `json:"size"`
	Time   time.Time `json:"time"`
	Status string    `json:"status,omitempty"`
	Reason string    `json:"reason,omitempty"`
}

// ChangeOf is a record as the change feed and webhooks show it.
func ChangeOf(r store.LogRecord) (Change, error) {
	rec, err := agora.ParseLogRecord(r.Text)
	if err != nil {
		return Change{}, err
	}
	return Change{
		Index: r.Index, Event: rec.Event, Hex: rec.Digest.Hex(), Base64: rec.Digest.Base64(),
		SHA256: hex.EncodeToString(rec.SHA256[:]), Size: rec.Size, Time: rec.Time, Status: rec.Status, Reason: rec.Reason,
	}, nil
}

// Changes is one answer of the change feed.
type Changes struct {
	Changes []Change `json:"changes"`
	// Next is the after value of the next call.
	Next int64 `json:"next"`
	// TreeSize is the log's size when answered.
	TreeSize int64 `json:"treeSize"`
}

// Feed limits.
const (
	MaxFeedLimit     = store.MaxLogRecords
	DefaultFeedLimit = 100
	MaxFeedWait      = 30 * time.Second
	// MaxFeedWaiters bounds the long polls waiting at once; past it a
	// poll answers at once, empty.
	MaxFeedWaiters = 1024
)

// Changes returns the records from index after on (after is how many
// the reader has), at most limit; with wait > 0 and nothing new it waits
// up to wait for the log to grow.
func (l *Log) Changes(ctx context.Context, after int64, limit int, wait time.Duration) (Changes, error) {
	if after < 0 || limit < 1 || limit > MaxFeedLimit || wait < 0 || wait > MaxFeedWait {
		return Changes{}, store.ErrInvalid.With(fmt.Sprintf(
			"the change feed takes after ≥ 0, limit 1 to %d and wait up to %s", MaxFeedLimit, MaxFeedWait))
	}
	for {
		l.mu.Lock()
		changed := l.changed
		l.mu.Unlock()
		out, err := l.changes(ctx, after, limit)
		if err != nil || len(out.Changes) > 0 || wait == 0 || !l.waiter() {
			return out, err
		}
		timer := time.NewTimer(wait)
		select {
		case <-changed:
			timer.Stop()
			l.unwait()
			wait = 0 // one more read, then answer
			continue
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
		}
		l.unwait()
		return out, nil
	}
}

// waiter takes a long-poll slot, unless all are taken.
func (l *Log) waiter() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.waiting >= MaxFeedWaiters {
		return false
	}
	l.waiting++
	return true
}

func (l *Log) unwait() {
	l.mu.Lock()
	l.waiting--
	l.mu.Unlock()
}

func (l *Log) changes(ctx context.Context, after int64, limit int) (Changes, error) {
	head, err := l.head(ctx)
	if err != nil {
		return Changes{}, err
	}
	l.saw(head.Size)
	out := Changes{Changes: []Change{}, Next: after, TreeSize: head.Size}
	if after >= head.Size {
		return out, nil
	}
	recs, err := l.st.LogRecords(ctx, after, limit)
	if err != nil {
		return Changes{}, err
	}
	for _, r := range recs {
		if r.Index >= head.Size || r.Index != out.Next {
			break // past the head read, or a gap (never: indexes are dense)
		}
		c, err := ChangeOf(r)
		if err != nil {
			return Changes{}, err
		}
		out.Changes = append(out.Changes, c)
		out.Next = r.Index + 1
	}
	return out, nil
}
