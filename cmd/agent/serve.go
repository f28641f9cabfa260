package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"strings"

	"github.com/agora-registry/registry/internal/agent"
	"github.com/agora-registry/registry/internal/cli"
)

func init() {
	register(cli.Command{Name: "serve", Summary: "run a receiving agent", Synopsis: "agent serve [--addr HOST:PORT] [--config FILE] [flags]", Run: serve})
}

func serve(ctx context.Context, std *cli.IO, args []string) error {
	var cfg agent.Config
	var path string
	fs, err := parse(std, "serve", cfg.Options(&path), args)
	if err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.UsageError{Err: fmt.Errorf("unexpected argument %q (the config file is --config FILE)", fs.Arg(0))}
	}
	if err := cfg.SetConfigPath(path); err != nil {
		return err
	}
	log, err := newLogger(std, cfg.LogLevel)
	if err != nil {
		return err
	}
	a, err := agent.New(cfg, log)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", a.Addr())
	if err != nil {
		return err
	}
	return a.Serve(ctx, ln)
}

func newLogger(std *cli.IO, level string) (*slog.Logger, error) {
	var l slog.Level
	if level != "" {
		if err := l.UnmarshalText([]byte(strings.ToUpper(level))); err != nil {
			return nil, fmt.Errorf("log level %q: use debug, info, warn or error", level)
		}
	}
	return slog.New(slog.NewJSONHandler(std.Stderr, &slog.HandlerOptions{Level: l})), nil
}
