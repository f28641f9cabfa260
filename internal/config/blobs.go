package config

import "path/filepath"

// Blobs locates the blob directory (the document files raw fetches are
// served from); shared by serve, import and blobs.
type Blobs struct {
	BlobDir        string // empty: <data-dir>/blobs
	BlobCacheBytes int    // bytes; 0: no cap
}

// Options lists the blob options.
func (b *Blobs) Options() []Option {
	return []Option{
		{Flag: "blob-dir", Env: "REGISTRY_BLOB_DIR", Default: "", Usage: "directory of the document files raw fetches are served from (one file per document, named by its hash; rebuilt from the database when lost); empty means <data-dir>/blobs, on PostgreSQL too", Value: Text(&b.BlobDir)},
		{Flag: "blob-cache-bytes", Env: "REGISTRY_BLOB_CACHE_BYTES", Default: "0", Usage: "most bytes the blob directory holds, evicting files at random past it (a replica with a small disk; evicted documents are read from the database and written again); 0 means no cap", Value: Size(&b.BlobCacheBytes, 0, 1<<50)},
	}
}

// Dir is the blob directory under db's data directory unless set.
func (b *Blobs) Dir(db Database) string {
	if b.BlobDir != "" {
		return b.BlobDir
	}
	return filepath.Join(db.DataDir, "blobs")
}

// BlobsCheck is the configuration of `registry blobs verify` and `rebuild`
// (rebuild reads no --repair).
type BlobsCheck struct {
	Database
	Blobs
	Repair bool
}

// Options lists the options of `registry blobs rebuild`.
func (c *BlobsCheck) Options() []Option {
	return append(c.Database.Options(), c.Blobs.Options()...)
}

// VerifyOptions lists the options of `registry blobs verify`.
func (c *BlobsCheck) VerifyOptions() []Option {
	return append(c.Options(),
		Option{Flag: "repair", Default: "false", Usage: "rewrite mismatching files from the database and remove those of withdrawn or unknown documents", Value: Bool(&c.Repair)})
}
