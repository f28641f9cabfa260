package main

import (
	"context"
	"fmt"

	"github.com/agora-registry/registry/internal/config"
)

func init() {
	register(command{name: "migrate", summary: "migrate up|down|version: manage the database schema", run: migrateCmd})
}

func migrateCmd(ctx context.Context, env *environment, args []string) error {
	var db config.Database
	fs := flagSet(env, "migrate")
	fs.Usage = func() {
		fmt.Fprintln(env.stderr, "usage: registry migrate [flags] up|down|version")
		fs.PrintDefaults()
	}
	if err := config.Parse(fs, db.Options(), args, env.getenv); err != nil {
		return usageOr(err)
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	switch dir := fs.Arg(0); dir {
	case "up", "down":
		if err := migrateStore(ctx, db, dir); err != nil {
			return err
		}
		fmt.Fprintf(env.stdout, "migrated %s\n", dir)
	case "version":
		v, dirty, err := schemaVersion(ctx, db)
		if err != nil {
			return err
		}
		state := "clean"
		if dirty {
			state = "DIRTY: a migration failed halfway; fix the schema by hand, then force the version"
		}
		fmt.Fprintf(env.stdout, "%d %s\n", v, state)
	default:
		fs.Usage()
		return errUsage
	}
	return nil
}
