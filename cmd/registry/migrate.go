package main

import (
	"context"
	"fmt"
	"strconv"

	"github.com/agora-registry/registry/internal/cli"
	"github.com/agora-registry/registry/internal/config"
	"github.com/agora-registry/registry/internal/store/migrate"
)

func init() {
	register(command{Name: "migrate", Summary: "migrate up|down [N|all]|version|force N: manage the database schema", Run: migrateCmd})
}

const migrateUsage = `usage: registry migrate [flags] COMMAND
  up           apply every pending migration
  down [N]     revert the last N migrations (default 1)
  down all     revert every migration: drops all documents and tokens (needs --yes)
  version      print the applied version and whether it is dirty
  force N      mark version N as applied and clean, after repairing a failed
               migration by hand (see docs/operations.md)`

func migrateCmd(ctx context.Context, env *environment, args []string) error {
	var cfg config.Migrate
	db, yes := &cfg.Database, &cfg.Yes
	fs := flagSet(env, "migrate")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), migrateUsage)
		cli.PrintFlags(fs)
	}
	if err := parseFlags(env, fs, cfg.Options(), args); err != nil {
		return err
	}
	if verb := fs.Arg(0); verb != "" && verb != "up" && verb != "down" && verb != "force" && verb != "version" {
		return usageError(env, fmt.Sprintf("unknown migrate command %q: use up, down, version or force\n%s", verb, migrateUsage))
	}
	if fs.NArg() < 1 || fs.NArg() > 2 {
		fs.Usage()
		return errUsage
	}
	engine, dsn, err := database(*db)
	if err != nil {
		return err
	}
	verb, arg := fs.Arg(0), fs.Arg(1)
	switch {
	case verb == "up" && arg == "":
		err = migrate.Up(ctx, engine, dsn)
	case verb == "down" && arg == "all":
		if !*yes {
			return usageError(env, "'migrate down all' drops every document and token; add --yes (before 'down') to confirm")
		}
		err = migrate.DownAll(ctx, engine, dsn)
	case verb == "down":
		steps := 1
		if arg != "" {
			if steps, err = strconv.Atoi(arg); err != nil || steps < 1 {
				return usageError(env, "down takes a positive number of steps or 'all'")
			}
		}
		err = migrate.Down(ctx, engine, dsn, steps)
	case verb == "force" && arg != "":
		v, convErr := strconv.Atoi(arg)
		if convErr != nil || v < 0 {
			return usageError(env, "force takes a version number")
		}
		err = migrate.Force(ctx, engine, dsn, v)
	case verb == "version" && arg == "":
		return printSchemaVersion(ctx, env, engine, dsn)
	default:
		fs.Usage()
		return errUsage
	}
	if err != nil {
		return err
	}
	return printSchemaVersion(ctx, env, engine, dsn)
}

func printSchemaVersion(ctx context.Context, env *environment, engine migrate.Engine, dsn string) error {
	v, dirty, err := migrate.Version(ctx, engine, dsn)
	if err != nil {
		return err
	}
	state := "clean"
	if dirty {
		state = "DIRTY: a migration failed halfway; repair the schema by hand, then run 'registry migrate force N'"
	}
	fmt.Fprintf(env.Stdout, "schema version %d (%s)\n", v, state)
	return nil
}

// usageError prints a usage mistake and returns errUsage (exit status 2).
func usageError(env *environment, message string) error {
	fmt.Fprintln(env.Stderr, "registry migrate: "+message)
	return errUsage
}
