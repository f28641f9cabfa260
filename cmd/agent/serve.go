package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/agora-registry/registry/internal/agent"
)

func serve(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	addr := fs.String("addr", "", "listen address (env AGENT_ADDR; default "+agent.DefaultAddr+")")
	configPath := fs.String("config", os.Getenv("AGENT_CONFIG"), "YAML config file (env AGENT_CONFIG)")
	cacheDir := fs.String("cache-dir", "", "protocol document cache directory (env AGENT_CACHE_DIR)")
	logLevel := fs.String("log-level", "", "debug, info, warn or error (env AGENT_LOG_LEVEL)")
	var registries, publicRegistries, allow listFlag
	fs.Var(&registries, "registry", "registry base URL, repeatable (env AGENT_REGISTRIES, comma-separated)")
	fs.Var(&publicRegistries, "public-registry", "the registries' public base URL for advertised sources, repeatable (env AGENT_PUBLIC_REGISTRIES; default: --registry)")
	fs.Var(&allow, "allow", "host, host:port, IP or CIDR the fetcher may reach despite the SSRF guard, repeatable (env AGENT_ALLOW)")
	if err := fs.Parse(args); err != nil {
		return exitCode(2)
	}
	var cfg agent.Config
	if *configPath != "" {
		var err error
		if cfg, err = agent.LoadConfig(*configPath); err != nil {
			return err
		}
	}
	if err := cfg.ApplyEnv(os.Getenv); err != nil {
		return err
	}
	// Flags win over the environment, which wins over the file.
	if *addr != "" {
		cfg.Addr = *addr
	}
	if *cacheDir != "" {
		cfg.CacheDir = *cacheDir
	}
	if *logLevel != "" {
		cfg.LogLevel = *logLevel
	}
	if len(registries) > 0 {
		cfg.Registries = registries
	}
	if len(publicRegistries) > 0 {
		cfg.PublicRegistries = publicRegistries
	}
	cfg.Allow = append(cfg.Allow, allow...)

	log, err := newLogger(cfg.LogLevel)
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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return a.Serve(ctx, ln)
}

func newLogger(level string) (*slog.Logger, error) {
	var l slog.Level
	if level != "" {
		if err := l.UnmarshalText([]byte(strings.ToUpper(level))); err != nil {
			return nil, fmt.Errorf("log level %q: use debug, info, warn or error", level)
		}
	}
	return slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: l})), nil
}
