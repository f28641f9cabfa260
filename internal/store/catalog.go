package store

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"time"
	"unicode/utf8"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
)

// Normalize validates a catalog query and fills its defaults; engines call
// it first.
func (q CatalogQuery) Normalize() (CatalogQuery, error) {
	if q.Publisher != "" {
		if _, err := entity.PublisherOr(q.Publisher); err != nil {
			return q, err
		}
	}
	var err error
	q.Limit, err = pageLimit(q.Limit)
	return q, err
}

// Window is how many rows an engine reads for one page: the page and one
// more when every row is kept, CatalogWalk when rows are filtered.
func (q CatalogQuery) Window() int {
	if q.LatestOnly {
		return CatalogWalk
	}
	return q.Limit + 1
}

// CatalogPosition is a row's place in the catalog order (newest first).
type CatalogPosition struct {
	CreatedAt time.Time
	Digest    protocol.Digest
}

// catalogCursor is the opaque cursor of a catalog page.
type catalogCursor struct {
	Query uint32 `json:"q"`
	Time  int64  `json:"t"`
	Hex   string `json:"h"`
}

func (q CatalogQuery) fingerprint() uint32 {
	h := fnv.New32a()
	fmt.Fprintf(h, "catalog\x00%s\x00%v", q.Publisher, q.LatestOnly)
	return h.Sum32()
}

// After reads the cursor: the position the page starts after (nil: from
// the newest).
func (q CatalogQuery) After() (*CatalogPosition, error) {
	if q.Cursor == "" {
		return nil, nil
	}
	if len(q.Cursor) > 256 || !utf8.ValidString(q.Cursor) {
		return nil, ErrInvalidCursor
	}
	raw, err := base64.RawURLEncoding.DecodeString(q.Cursor)
	if err != nil {
		return nil, ErrInvalidCursor
	}
	var c catalogCursor
	if err := json.Unmarshal(raw, &c); err != nil || c.Query != q.fingerprint() || len(c.Hex) != 40 {
		return nil, ErrInvalidCursor
	}
	d, err := protocol.ParseDigest(c.Hex)
	if err != nil {
		return nil, ErrInvalidCursor
	}
	return &CatalogPosition{CreatedAt: time.UnixMicro(c.Time).UTC(), Digest: d}, nil
}

func (q CatalogQuery) cursor(p CatalogPosition) string {
	b, _ := json.Marshal(catalogCursor{Query: q.fingerprint(), Time: p.CreatedAt.UnixMicro(), Hex: p.Digest.Hex()})
	return base64.RawURLEncoding.EncodeToString(b)
}

// CatalogRow is one row of an engine's window: its position and whether
// the filter keeps it.
type CatalogRow struct {
	CatalogPosition
	Keep bool
}

// Pick chooses a page from a window read newest first: the digests to
// load (in order) and the next cursor. A full window with too few kept
// rows ends the page early at the last row examined, so one page never
// examines more than Window rows however sparse the kept rows are.
func (q CatalogQuery) Pick(window []CatalogRow) (page []protocol.Digest, next string) {
	var last CatalogPosition
	for _, r := range window {
		if !r.Keep {
			continue
		}
		if len(page) == q.Limit {
			return page, q.cursor(last)
		}
		page = append(page, r.Digest)
		last = r.CatalogPosition
	}
	if len(window) == q.Window() && q.LatestOnly {
		return page, q.cursor(window[len(window)-1].CatalogPosition)
	}
	return page, ""
}
