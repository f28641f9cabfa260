package config

// DefaultImportPublisher is import's --publisher default: a name documents
// carry without an account, the one --publisher needs none for.
const DefaultImportPublisher = "import"

// Import is the configuration of `registry import`. Its document size limit
// is serve's option (flag, variable, default), so an import refuses exactly
// what the server would.
type Import struct {
	Database
	Blobs
	MaxDocumentBytes int
	MaxEntries       int
	MaxArchiveBytes  int
	Publisher        string
	KeepPublishers   bool
	ApplyWithdrawals bool
	KeepLifecycle    bool
	Writers          int
}

// Options lists the options of `registry import`. The defaults of
// --max-entries, --max-archive-bytes and --publisher are the archive
// package's (cmd/registry's tests check they agree).
func (c *Import) Options() []Option {
	return append(append(c.Database.Options(), c.Blobs.Options()...),
		maxDocumentBytesOption(&c.MaxDocumentBytes),
		Option{Flag: "max-entries", Default: "10000000", Usage: "most archive entries or .md files read before the import stops", Value: Count(&c.MaxEntries, 1, 1_000_000_000)},
		Option{Flag: "max-archive-bytes", Default: "64GiB", Usage: "most uncompressed archive bytes read before the import stops", Value: Size(&c.MaxArchiveBytes, 1<<10, 1<<40)},
		Option{Flag: "publisher", Default: DefaultImportPublisher, Usage: "publisher recorded for the documents the import creates (their own versions form a lineage among themselves only); a name other than the default must be an account (registry publisher create)", Value: Text(&c.Publisher)},
		Option{Flag: "keep-publishers", Default: "false", Usage: "keep the publishers an archive names instead of --publisher: only for archives you trust, such as a backup of this registry (an archive could otherwise file documents under any publisher as its newer versions)", Value: Bool(&c.KeepPublishers)},
		Option{Flag: "apply-withdrawals", Default: "false", Usage: "let the archive's withdrawals withdraw documents stored here live; without it an import never changes an existing entry", Value: Bool(&c.ApplyWithdrawals)},
		Option{Flag: "keep-lifecycle", Default: "false", Usage: "restore the archive's statuses (deprecations, their messages and replacements) and status histories, on the documents the import creates and on stored ones whose status was never changed here: only for archives you trust (an archive could otherwise deprecate documents in favour of its own)", Value: Bool(&c.KeepLifecycle)},
		Option{Flag: "writers", Default: "0", Usage: "batches written at once; 0 means 2 on PostgreSQL (the server works on one while the other commits) and 1 on SQLite (one writer at a time)", Value: Count(&c.Writers, 0, 64)},
	)
}

func maxDocumentBytesOption(p *int) Option {
	return Option{Flag: "max-document-bytes", Env: "REGISTRY_MAX_DOCUMENT_BYTES", Default: "1MiB", Usage: "largest protocol document accepted (413 above; import refuses larger documents)", Value: Size(p, 1, 1<<28)}
}

// Export is the configuration of `registry export`.
type Export struct {
	Database
	Output string
}

// Options lists the options of `registry export`.
func (c *Export) Options() []Option {
	return append(c.Database.Options(),
		Option{Flag: "o", Default: "-", Usage: "archive file to write; - means standard output (refused when it is a terminal)", Value: Text(&c.Output)})
}

// Migrate is the configuration of `registry migrate`.
type Migrate struct {
	Database
	Yes bool
}

// Options lists the options of `registry migrate`.
func (c *Migrate) Options() []Option {
	return append(c.Database.Options(),
		Option{Flag: "yes", Default: "false", Usage: "confirm a destructive 'down all'", Value: Bool(&c.Yes)})
}

// TokenCreate is the configuration of `registry token create`.
type TokenCreate struct {
	Database
	Name      string
	Scope     string
	Publisher string
	IfMissing bool
}

// Options lists the options of `registry token create`.
func (c *TokenCreate) Options() []Option {
	return append(c.Database.Options(),
		Option{Flag: "name", Default: "", Usage: "a name saying who or what uses the token (unique among the tokens not revoked)", Value: Text(&c.Name)},
		Option{Flag: "scope", Default: "publish", Usage: "comma-separated scopes: read (reading a --private registry), publish (implies read), admin (implies both)", Value: Text(&c.Scope)},
		Option{Flag: "publisher", Default: "default", Usage: "the publisher the token publishes as: documents it publishes first record it, and only its own documents count as each other's versions", Value: Text(&c.Publisher)},
		Option{Flag: "if-missing", Default: "false", Usage: "succeed without creating a token (and print no secret) when a token of this name exists and is not revoked, so scripts can run it again", Value: Bool(&c.IfMissing)},
	)
}

// Listing is the configuration of the list subcommands (token, publisher,
// webhook list).
type Listing struct {
	Database
	JSON bool
}

// Options lists the options of a list subcommand.
func (c *Listing) Options() []Option {
	return append(c.Database.Options(),
		Option{Flag: "json", Default: "false", Usage: "print a JSON array instead of a table", Value: Bool(&c.JSON)})
}

// Publish is the configuration of `registry publish`.
type Publish struct {
	Client
	DryRun bool
	Force  bool
}

// Options lists the options of `registry publish`.
func (c *Publish) Options() []Option {
	return append(c.Client.Options(),
		Option{Flag: "dry-run", Default: "false", Usage: "print what would be stored (hashes, title, lints, whether it is new) and store nothing", Value: Bool(&c.DryRun)},
		Option{Flag: "force", Default: "false", Usage: "publish a document the Python SDK cannot read (no or broken front matter); publishing cannot be undone", Value: Bool(&c.Force)})
}

// Withdraw is the configuration of `registry withdraw`.
type Withdraw struct {
	Client
	Reason string
}

// Options lists the options of `registry withdraw`.
func (c *Withdraw) Options() []Option {
	return append(c.Client.Options(),
		Option{Flag: "reason", Default: "", Usage: "why the document is withdrawn, shown with its 410 answers (required)", Value: Text(&c.Reason)})
}
