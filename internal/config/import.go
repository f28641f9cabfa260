package config

// Import is the configuration of `registry import`: the database and the
// document size limit, the same option (flag, variable, default) as serve's
// so an import refuses exactly what the server would.
type Import struct {
	Database
	Blobs
	MaxDocumentBytes int
}

// Options lists the options of `registry import` read from the table.
func (c *Import) Options() []Option {
	return append(append(c.Database.Options(), c.Blobs.Options()...), maxDocumentBytesOption(&c.MaxDocumentBytes))
}

func maxDocumentBytesOption(p *int) Option {
	return Option{Flag: "max-document-bytes", Env: "REGISTRY_MAX_DOCUMENT_BYTES", Default: "1MiB", Usage: "largest protocol document accepted (413 above; import refuses larger documents)", value: sizeValue{p, 1, 1 << 28}}
}
