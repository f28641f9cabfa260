package resolve

import (
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/agent/safehttp"
)

// A refused dial names the address a host name resolved to: the sender
// hears only that the address is not allowed.
func TestBlockedSourceNamesNoAddress(t *testing.T) {
	err := safehttp.ErrBlocked.With("refusing to connect to 10.1.2.3:22: private, loopback or reserved address")
	if got := errText(err); strings.Contains(got, "10.1.2.3") || got != safehttp.ErrBlocked.Message {
		t.Fatalf("errText = %q", got)
	}
}
