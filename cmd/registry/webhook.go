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
		synopsis: "registry webhook add URL --secret S [--events publish,withdraw,...] [--from-start] | list | remove ID", run: webhookCmd})
}

func webhookCmd(ctx context.Context, env *environment, args []string) error {
	const usage = "usage: registry webhook add URL --secret S [--events publish,withdraw] [--from-start] | list | remove ID\n(database flags go after the subcommand: registry webhook list --data-dir DIR)"
	if len(args) == 0 || (args[0] != "add" && args[0] != "list" && args[0] != "remove") {
		fmt.Fprintln(env.stderr, usage)
		return errUsage
	}
	sub, args := args[0], args[1:]
	var db config.Database
	fs := flagSet(env, "webhook "+sub)
	secret := new(string)
	events := new(string)
	fromStart := new(bool)
	if sub == "add" {
		secret = fs.String("secret", "", "shared secret keying the X-Agora-Signature HMAC (at least 16 characters)")
		events = fs.String("events", "publish,withdraw", "comma-separated events to deliver")
		fromStart = fs.Bool("from-start", false, "deliver the whole log, not only changes from now on")
	}
	if err := parseFlags(env, fs, db.Options(), args); err != nil {
		return err
	}
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
		w, err := webhook.Add(ctx, st, fs.Arg(0), *secret, strings.Split(*events, ","), *fromStart)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.stdout, "%d %s %s from record %d\n", w.ID, w.URL, strings.Join(w.Events, ","), w.Delivered)
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
