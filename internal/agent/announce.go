package agent

import (
	"context"
	"net"
	"net/url"
	"os"
	"strings"
	"sync"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/config"
)

// RegistryTokenEnv holds the bearer token for the registries (announce,
// publish, and resolving from a private registry: a read token); a secret,
// so never a flag.
const RegistryTokenEnv = "AGENT_REGISTRY_TOKEN"

// announcers builds one agora.Announcer per --announce registry; each
// registry's host is opened in its client's SSRF guard, as the operator
// chose it.
func (a *Agent) announcers(publicURL string) ([]*agora.Announcer, error) {
	var out []*agora.Announcer
	for _, base := range a.cfg.Announce {
		u, err := url.Parse(base) // checked by New
		if err != nil {
			return nil, err
		}
		hc, err := agora.NewHTTPClient(agora.FetchPolicy{Allow: []string{u.Host}, Timeout: agora.DefaultAnnounceTimeout})
		if err != nil {
			return nil, err
		}
		reg, err := agora.NewRegistry(base, hc)
		if err != nil {
			return nil, err
		}
		reg.Token = os.Getenv(RegistryTokenEnv)
		out = append(out, &agora.Announcer{Registry: reg, URL: publicURL, Handler: a.handler, Log: a.log})
	}
	return out, nil
}

// PublicURL is the base URL announced for an agent listening on addr:
// publicURL when configured, else http://addr.
func (a *Agent) PublicURL(addr net.Addr) string {
	if a.cfg.PublicURL != "" {
		return strings.TrimRight(a.cfg.PublicURL, "/")
	}
	return config.HTTPURLOf(addr.String())
}

// announce runs the announcers until ctx ends; the returned wait blocks
// until they have.
func (a *Agent) announce(ctx context.Context, list []*agora.Announcer) (wait func()) {
	var wg sync.WaitGroup
	for _, an := range list {
		wg.Go(func() { an.Run(ctx) })
	}
	return wg.Wait
}
