package agora

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"golang.org/x/mod/sumdb/tlog"
)

// Log answers are small: a checkpoint or a record is a few hundred bytes,
// a tile at most 256 hashes (8 KiB) or 256 records.
const maxLogBytes = 1 << 20

// logGet fetches one /log answer of at most limit bytes.
func (c *Registry) logGet(ctx context.Context, path string, limit int) ([]byte, error) {
	req, err := c.request(ctx, http.MethodGet, path, nil, "", "text/plain, application/octet-stream")
	if err != nil {
		return nil, err
	}
	_, body, err := c.do(req, limit)
	return body, err
}

// LogCheckpoint is the registry's latest signed checkpoint (unverified).
func (c *Registry) LogCheckpoint(ctx context.Context) ([]byte, error) {
	return c.logGet(ctx, "/log/checkpoint", maxLogBytes)
}

// LogTile is one tile at path (tlog.Tile.Path) (unverified). A hash
// tile is read only up to its exact size (W hashes): a proof reads a few
// tiles per level, and a hostile registry must not make each of them 1 MiB.
func (c *Registry) LogTile(ctx context.Context, path string) ([]byte, error) {
	t, err := tlog.ParseTilePath(path)
	if err != nil {
		return nil, ErrRegistryURL.With("not a tile path")
	}
	limit := maxLogBytes
	if t.L >= 0 {
		limit = t.W * tlog.HashSize
	}
	return c.logGet(ctx, "/log/"+path, limit)
}

// LogLookup is the record and checkpoint of a document (unverified).
func (c *Registry) LogLookup(ctx context.Context, d Digest) ([]byte, error) {
	return c.logGet(ctx, "/log/lookup/"+d.Hex(), maxLogBytes)
}

// LogRecord is one record's text (unverified).
func (c *Registry) LogRecord(ctx context.Context, id int64) ([]byte, error) {
	return c.logGet(ctx, "/log/record/"+strconv.FormatInt(id, 10), maxLogBytes)
}

// RegistryWellKnown is a registry's self-description (/.well-known/agora).
type RegistryWellKnown struct {
	Name           string   `json:"name"`
	Version        string   `json:"version"`
	APIBase        string   `json:"apiBase"`
	RawURLTemplate string   `json:"rawUrlTemplate"`
	HashSpellings  []string `json:"hashSpellings"`
	Changes        string   `json:"changes"`
	Log            *struct {
		Origin      string `json:"origin"`
		VerifierKey string `json:"verifierKey"`
		Checkpoint  string `json:"checkpoint"`
		Tiles       string `json:"tiles"`
		Lookup      string `json:"lookup"`
		Record      string `json:"record"`
	} `json:"log"`
}

// WellKnown reads /.well-known/agora.
func (c *Registry) WellKnown(ctx context.Context) (RegistryWellKnown, error) {
	req, err := c.request(ctx, http.MethodGet, "/.well-known/agora", nil, "", "application/json")
	if err != nil {
		return RegistryWellKnown{}, err
	}
	var w RegistryWellKnown
	_, err = c.doJSON(req, &w)
	return w, err
}

// WaitChanges long-polls the change feed for records from index after on
// and returns the log's size (the follower's wake-up call; it reads the
// records themselves from the verified log).
func (c *Registry) WaitChanges(ctx context.Context, after int64, wait time.Duration) (int64, error) {
	path := "/api/v1/changes?limit=1&after=" + strconv.FormatInt(after, 10) + "&wait=" + wait.String()
	req, err := c.request(ctx, http.MethodGet, path, nil, "", "application/json")
	if err != nil {
		return 0, err
	}
	var out struct {
		TreeSize int64 `json:"treeSize"`
	}
	_, err = c.doJSON(req, &out)
	return out.TreeSize, err
}

// TLogProof is a document's c2sp.org/tlog-proof@v1 proof, read up to
// MaxTLogProofBytes (unverified: VerifyDocumentProof checks it).
func (c *Registry) TLogProof(ctx context.Context, d Digest) ([]byte, error) {
	return c.logGet(ctx, "/protocol/"+d.Hex()+".tlog-proof", MaxTLogProofBytes)
}
