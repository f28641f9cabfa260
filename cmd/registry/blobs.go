package main

import (
	"context"
	"fmt"

	"github.com/agora-registry/registry/internal/blobs"
	"github.com/agora-registry/registry/internal/config"
	"github.com/agora-registry/registry/internal/plural"
	"github.com/agora-registry/registry/internal/registry"
)

func init() {
	register(command{Name: "blobs", Summary: "blobs verify [--repair] | rebuild: check or recreate the blob directory", Run: blobsCmd})
}

func blobsCmd(ctx context.Context, env *environment, args []string) error {
	const usage = "usage: registry blobs verify [--repair] | rebuild\n  verify   re-hash every blob file; report files that do not match, or belong to withdrawn or unknown documents (--repair: rewrite or remove them)\n  rebuild  write a new blob directory from the database and swap it in\n(database and blob flags go after the subcommand: registry blobs verify --data-dir DIR)"
	sub, args, err := subcommand(env, "blobs", usage, args, "verify", "rebuild")
	if err != nil {
		return err
	}
	var cfg config.BlobsCheck
	opts := cfg.Options()
	if sub == "verify" {
		opts = cfg.VerifyOptions()
	}
	fs := flagSet(env, "blobs "+sub)
	if err := parseFlags(env, fs, opts, args); err != nil {
		return err
	}
	db, bc, repair := cfg.Database, cfg.Blobs, &cfg.Repair
	st, _, err := openStore(ctx, db)
	if err != nil {
		return fmt.Errorf("opening the database: %w", err)
	}
	defer st.Close()
	files, err := blobs.Open(bc.Dir(db), int64(bc.BlobCacheBytes))
	if err != nil {
		return err
	}
	svc := registry.New(st, registry.Config{Blobs: files})
	if sub == "rebuild" {
		n, err := svc.RebuildBlobs(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "rebuilt %s: %s\n", files.Dir(), plural.Of(n, "file"))
		return nil
	}
	c, err := svc.VerifyBlobs(ctx, *repair, func(p registry.BlobProblem) {
		state := "found"
		if p.Fixed {
			state = "fixed"
		}
		fmt.Fprintf(env.Stdout, "%s %s %s\n", state, p.What, p.Digest.Hex())
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "checked %s (%d bytes) in %s: %d mismatching, %d withdrawn, %d unknown, %d not regular files; %d fixed\n",
		plural.Of(c.Files, "file"), c.Bytes, files.Dir(), c.Bad, c.Withdrawn, c.Orphans, c.NotRegular, c.Repaired)
	if c.Problems() > c.Repaired {
		return fmt.Errorf("%s left (run with --repair)", plural.Of(c.Problems()-c.Repaired, "problem"))
	}
	return nil
}
