package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agora-registry/registry/internal/config"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/webhook"
)

func init() {
	register(command{Name: "webhook", Summary: "add, list or remove webhooks (CloudEvents POSTs of every change)",
		Synopsis: "registry webhook add URL --secret S [--events publish,withdraw,...] [--from-start] | list | remove ID",
		Subs:     map[string]string{"add": "registry webhook add [flags] URL", "remove": "registry webhook remove [flags] ID"}, Run: webhookCmd})
}

func webhookCmd(ctx context.Context, env *environment, args []string) error {
	const usage = "usage: registry webhook add URL --secret S [--events publish,withdraw] [--from-start] | list | remove ID\n(database flags go after the subcommand: registry webhook list --data-dir DIR)"
	sub, args, err := subcommand(env, "webhook", usage, args, "add", "list", "remove")
	if err != nil {
		return err
	}
	var add config.WebhookAdd
	var list config.Listing
	db, opts := &add.Database, add.Database.Options()
	switch sub {
	case "add":
		opts = add.Options()
	case "list":
		db, opts = &list.Database, list.Options()
	}
	fs := flagSet(env, "webhook "+sub)
	if err := parseFlags(env, fs, opts, args); err != nil {
		return err
	}
	st, _, err := openStore(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	switch sub {
	case "add":
		if fs.NArg() != 1 {
			fmt.Fprintln(env.Stderr, usage)
			return errUsage
		}
		w, err := webhook.Add(ctx, st, fs.Arg(0), add.Secret, add.Events, add.FromStart)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "%d %s %s from record %d\n", w.ID, w.URL, strings.Join(w.Events, ","), w.Delivered)
		if add.Secret == "" {
			fmt.Fprintf(env.Stdout, "secret %s\n", w.Secret) // made for this webhook: shown once, give it to the receiver
		}
	case "list":
		ws, err := st.ListWebhooks(ctx)
		if err != nil {
			return err
		}
		if list.JSON {
			out := make([]webhookJSON, 0, len(ws))
			for _, w := range ws {
				out = append(out, webhookJSON{w.ID, w.URL, w.Events, w.Delivered, w.Attempts, entity.InUTC(w.FailingSince), w.CreatedAt.UTC()})
			}
			return printJSON(env, out)
		}
		for _, w := range ws {
			fmt.Fprintf(env.Stdout, "%d %s %s delivered %d attempts %d\n", w.ID, w.URL, strings.Join(w.Events, ","), w.Delivered, w.Attempts)
		}
	default:
		id, err := strconv.ParseInt(fs.Arg(0), 10, 64)
		if err != nil || fs.NArg() != 1 {
			fmt.Fprintln(env.Stderr, usage)
			return errUsage
		}
		if err := st.DeleteWebhook(ctx, id); errors.Is(err, store.ErrNotFound) {
			return store.ErrNotFound.With(fmt.Sprintf("no webhook with id %d (registry webhook list shows them)", id))
		} else if err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "removed webhook %d\n", id)
	}
	return nil
}

// webhookJSON is a webhook as `webhook list --json` prints it (never its
// secret).
type webhookJSON struct {
	ID           int64      `json:"id"`
	URL          string     `json:"url"`
	Events       []string   `json:"events"`
	Delivered    int64      `json:"delivered"`
	Attempts     int        `json:"attempts"`
	FailingSince *time.Time `json:"failingSince"`
	CreatedAt    time.Time  `json:"createdAt"`
}
