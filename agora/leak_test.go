package agora

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"strings"
	"testing"
)

// TestDNSFailureLeaksNoResolverAddress: a source whose name cannot be
// resolved is reported as such, never with the Go error that names the
// agent's DNS server ("lookup x on 10.0.0.2:53: ..."); the log keeps it.
func TestDNSFailureLeaksNoResolverAddress(t *testing.T) {
	// A resolver whose server never answers: every lookup fails at once.
	dead, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadAddr := dead.LocalAddr().String()
	dead.Close()
	resolver := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "udp", deadAddr)
	}}
	client, err := NewFetcher(FetchPolicy{Resolver: resolver})
	if err != nil {
		t.Fatal(err)
	}
	cache, err := OpenCache(t.TempDir(), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	r := &Resolver{cache: cache, fetcher: client, logger: slog.New(slog.NewTextHandler(&logs, nil))}
	_, err = r.Resolve(context.Background(), digest, []string{"http://protocols.example.test/weather.md"})
	shown := errText(err)
	if !strings.Contains(shown, "the host name could not be resolved") {
		t.Fatalf("the sender reads %q, want it to say the name could not be resolved", shown)
	}
	for _, leak := range []string{"lookup", "udp", "dial", ":53", deadAddr} {
		if strings.Contains(shown, leak) {
			t.Errorf("the sender reads %q, which names %q", shown, leak)
		}
	}
	if !strings.Contains(logs.String(), "lookup protocols.example.test") {
		t.Errorf("the log lacks the resolver's error:\n%s", logs.String())
	}
}
