// Package migrations embeds the schema migrations of both engines, one
// directory each, applied with golang-migrate.
package migrations

import "embed"

// Postgres holds postgres/*.sql; SQLite holds sqlite/*.sql.
var (
	//go:embed postgres/*.sql
	Postgres embed.FS
	//go:embed sqlite/*.sql
	SQLite embed.FS
)
