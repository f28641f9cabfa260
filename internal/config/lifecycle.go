package config

// Deprecate is the configuration of `registry deprecate`.
type Deprecate struct {
	Client
	Message     string
	Replacement string
	Undo        bool
}

// Options lists the options of `registry deprecate`.
func (c *Deprecate) Options() []Option {
	return append(c.Client.Options(),
		Option{Flag: "message", Default: "", Usage: "why, and what to use instead (shown on the page and in resolve answers)", Value: Text(&c.Message)},
		Option{Flag: "replacement", Default: "", Usage: "the hash of the document to use instead", Value: Text(&c.Replacement)},
		Option{Flag: "undo", Default: "false", Usage: "make the document active again", Value: Bool(&c.Undo)},
	)
}

// PublisherCreate is the configuration of `registry publisher create`.
type PublisherCreate struct {
	Database
	Display string
}

// Options lists the options of `registry publisher create`.
func (c *PublisherCreate) Options() []Option {
	return append(c.Database.Options(),
		Option{Flag: "display", Default: "", Usage: "the name pages show for the publisher", Value: Text(&c.Display)})
}

// PublisherVerify is the configuration of `registry publisher verify`.
type PublisherVerify struct {
	Database
	Domain        string
	Check         bool
	Scheme        string
	OutboundAllow []string
}

// Options lists the options of `registry publisher verify`.
func (c *PublisherVerify) Options() []Option {
	return append(c.Database.Options(),
		Option{Flag: "domain", Default: "", Usage: "the domain to prove: the registry fetches https://DOMAIN/.well-known/agora-publisher (required)", Value: Text(&c.Domain)},
		Option{Flag: "check", Default: "false", Usage: "fetch the challenge issued before and mark the domain verified when it is served", Value: Bool(&c.Check)},
		Option{Flag: "scheme", Default: "https", Usage: "the scheme of the fetch (http only for loopback tests and private deployments)", Value: Choice(&c.Scheme, "https", "http")},
		outboundAllowOption(&c.OutboundAllow),
	)
}

// WebhookAdd is the configuration of `registry webhook add`.
type WebhookAdd struct {
	Database
	Secret    string
	Events    []string
	FromStart bool
}

// Options lists the options of `registry webhook add`.
func (c *WebhookAdd) Options() []Option {
	return append(c.Database.Options(),
		Option{Flag: "secret", Default: "", Usage: "shared secret keying the webhook-signature HMAC (Standard Webhooks): whsec_ and base64 of at least 16 bytes, or any text of at least 16 characters; empty: a new whsec_ secret is made and printed", Value: Text(&c.Secret)},
		Option{Flag: "events", Default: "publish,withdraw", Usage: "comma-separated events to deliver", Value: List(&c.Events)},
		Option{Flag: "from-start", Default: "false", Usage: "deliver the whole log, not only changes from now on", Value: Bool(&c.FromStart)},
	)
}
