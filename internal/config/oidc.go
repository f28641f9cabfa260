package config

import "time"

// OIDC is signing in with the team's OpenID Connect provider, the roles
// its claims give, and private mode.
type OIDC struct {
	OIDCIssuer           string
	OIDCClientID         string
	OIDCClientSecretFile string // the secret is never a flag value
	OIDCScopes           []string
	OIDCPublisher        []string // GROUP=PUBLISHER or @DOMAIN=PUBLISHER
	OIDCAdminGroup       []string
	OIDCSessionTTL       time.Duration
	// Private makes every read need a session or a token with the read
	// scope (health checks aside).
	Private bool
}

// Options lists the sign-in and private-mode options.
func (c *OIDC) Options() []Option {
	return []Option{
		{Flag: "oidc-issuer", Env: "REGISTRY_OIDC_ISSUER", Default: "", Usage: "issuer URL of the OpenID Connect provider users sign in with (/login); empty: no sign-in. The provider's redirect URI is the public URL + /login/callback", Value: Text(&c.OIDCIssuer)},
		{Flag: "oidc-client-id", Env: "REGISTRY_OIDC_CLIENT_ID", Default: "", Usage: "client id of the registry at the OpenID Connect provider", Value: Text(&c.OIDCClientID)},
		{Flag: "oidc-client-secret-file", Env: "REGISTRY_OIDC_CLIENT_SECRET_FILE", Default: "", Usage: "regular file holding the client secret (never a flag value); empty: a public client (PKCE only)", Value: Text(&c.OIDCClientSecretFile)},
		{Flag: "oidc-scopes", Env: "REGISTRY_OIDC_SCOPES", Default: "openid,email,profile,groups", Usage: "comma-separated scopes asked of the provider; the ID token's groups claim and verified email give roles", Value: List(&c.OIDCScopes)},
		{Flag: "oidc-publisher", Env: "REGISTRY_OIDC_PUBLISHER", Default: "", Usage: "GROUP=PUBLISHER or @EMAIL_DOMAIN=PUBLISHER (repeatable, or comma-separated): signed-in members of the group, or users with a verified email in the domain, publish, deprecate and manage tokens as the publisher", Value: List(&c.OIDCPublisher)},
		{Flag: "oidc-admin-group", Env: "REGISTRY_OIDC_ADMIN_GROUP", Default: "", Usage: "groups (repeatable, or comma-separated) whose signed-in members are administrators", Value: List(&c.OIDCAdminGroup)},
		{Flag: "oidc-session-ttl", Env: "REGISTRY_OIDC_SESSION_TTL", Default: "12h", Usage: "how long a browser session lasts after signing in", Value: Duration(&c.OIDCSessionTTL)},
		{Flag: "private", Env: "REGISTRY_PRIVATE", Default: "false", Usage: "private mode: every read (pages, API, raw documents, log, feeds, MCP) needs a signed-in session or an API token with the read scope; /healthz and /readyz stay open", Value: Bool(&c.Private)},
	}
}
