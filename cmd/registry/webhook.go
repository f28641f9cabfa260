package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/agora-registry/registry/internal/config"
	"github.com/agora-registry/registry/internal/webhook"
)

func init() {
	register(command{name: "webhook", summary: "add, list or remove webhooks (CloudEvents POSTs of every change)",
		synopsis: "registry webhook add URL --secret S [--events publish,withdraw,...] [--from-start] | list | remove ID",
		subs:     map[string]string{"add": "registry webhook add [flags] URL", "remove": "registry webhook remove [flags] ID"}, run: webhookCmd})
}

func webhookCmd(ctx context.Context, env *environment, args []string) error {
	const usage = "usage: registry webhook add URL --secret S [--events publish,withdraw] [--from-start] | list | remove ID\n(database flags go after the subcommand: registry webhook list --data-dir DIR)"
	sub, args, err := subcommand(env, "webhook", usage, args, "add", "list", "remove")
	if err != nil {
		return err
	}
	var add config.WebhookAdd
	opts := add.Database.Options()
	if sub == "add" {
		opts = add.Options()
	}
	fs := flagSet(env, "webhook "+sub)
	if err := parseFlags(env, fs, opts, args); err != nil {
		return err
	}
	db := add.Database
	st, _, err := openStore(ctx, db)
	if err != nil {
		return err
	}
	defer st.Close()
	switch sub {
	case "add":
		if fs.NArg() != 1 {
			fmt.Fprintln(env.stderr, usage)
			return errUsage
		}
		w, err := webhook.Add(ctx, st, fs.Arg(0), add.Secret, add.Events, add.FromStart)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.stdout, "%d %s %s from record %d\n", w.ID, w.URL, strings.Join(w.Events, ","), w.Delivered)
		if add.Secret == "" {
			fmt.Fprintf(env.stdout, "secret %s\n", w.Secret) // made for this webhook: shown once, give it to the receiver
		}
	case "list":
		ws, err := st.ListWebhooks(ctx)
		if err != nil {
			return err
		}
		for _, w := range ws {
			fmt.Fprintf(env.stdout, "%d %s %s delivered %d attempts %d\n", w.ID, w.URL, strings.Join(w.Events, ","), w.Delivered, w.Attempts)
		}
	default:
		id, err := strconv.ParseInt(fs.Arg(0), 10, 64)
		if err != nil || fs.NArg() != 1 {
			fmt.Fprintln(env.stderr, usage)
			return errUsage
		}
		return st.DeleteWebhook(ctx, id)
	}
	return nil
}
