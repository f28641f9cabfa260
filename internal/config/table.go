package config

// Command is one subcommand and every option it reads, for the reference
// (docs/configuration.md) and the tests that hold each command's flag set
// to this table.
type Command struct {
	Name    string // as typed after the binary's name: "serve", "token create"
	Options []Option
}

// RegistryCommands lists the registry's subcommands that take options. A
// new subcommand adds its row here and reads its flags with Parse.
func RegistryCommands() []Command {
	return []Command{
		{"serve", (&Serve{}).Options()},
		{"healthcheck", (&Healthcheck{}).Options()},
		{"migrate", (&Migrate{}).Options()},
		{"token create", (&TokenCreate{}).Options()},
		{"token list", (&Listing{}).Options()},
		{"token revoke", (&Database{}).Options()},
		{"export", (&Export{}).Options()},
		{"import", (&Import{}).Options()},
		{"blobs verify", (&BlobsCheck{}).VerifyOptions()},
		{"blobs rebuild", (&BlobsCheck{}).Options()},
		{"publish", (&Publish{}).Options()},
		{"get", (&Client{}).Options()},
		{"withdraw", (&Withdraw{}).Options()},
		{"deprecate", (&Deprecate{}).Options()},
		{"publisher create", (&PublisherCreate{}).Options()},
		{"publisher list", (&Listing{}).Options()},
		{"publisher verify", (&PublisherVerify{}).Options()},
		{"mcp", (&MCP{}).Options()},
		{"verify", (&Verify{}).Options()},
		{"webhook add", (&WebhookAdd{}).Options()},
		{"webhook list", (&Listing{}).Options()},
		{"webhook remove", (&Database{}).Options()},
		{"follow reset", (&FollowReset{}).Options()},
	}
}
