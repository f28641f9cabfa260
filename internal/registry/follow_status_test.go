package registry

import (
	"context"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
)

// TestReplicateStatusRepeatsWriteNothing: a follower repeats what its
// upstreams say on every pass; a status the document already has (a long
// message clipped, a replacement left out) adds no history event.
func TestReplicateStatusRepeatsWriteNothing(t *testing.T) {
	ctx := context.Background()
	svc := newService(t, Config{})
	doc, _ := svc.Publish(ctx, []byte("# Old\n"), nil, "")
	unknown := protocol.Digest{0x01} // never stored here
	long := strings.Repeat("use the new one ", 100)
	for i := 0; i < 3; i++ {
		if _, err := svc.ReplicateStatus(ctx, doc.Entry.Digest, StatusRequest{Status: entity.StatusDeprecated, Message: long, Replacement: &unknown}, "follower:up"); err != nil {
			t.Fatal(err)
		}
	}
	h, err := svc.History(ctx, doc.Entry.Digest)
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != 1 {
		t.Fatalf("three identical replications wrote %d history events, want 1", len(h))
	}
	if h[0].Replacement != nil {
		t.Fatalf("a replacement not stored here was kept: %v", h[0].Replacement)
	}
}

// TestReplicateStatusMakesNoReplacementCycle: upstreams that deprecate
// two documents for each other cannot make this registry link them in a
// circle; the second replacement is left out, its message kept.
func TestReplicateStatusMakesNoReplacementCycle(t *testing.T) {
	ctx := context.Background()
	svc := newService(t, Config{})
	a, _ := svc.Publish(ctx, []byte("# A\n"), nil, "")
	b, _ := svc.Publish(ctx, []byte("# B\n"), nil, "")
	if _, err := svc.ReplicateStatus(ctx, a.Entry.Digest, StatusRequest{Status: entity.StatusDeprecated, Message: "use B", Replacement: &b.Entry.Digest}, "follower:up"); err != nil {
		t.Fatal(err)
	}
	e, err := svc.ReplicateStatus(ctx, b.Entry.Digest, StatusRequest{Status: entity.StatusDeprecated, Message: "use A", Replacement: &a.Entry.Digest}, "follower:up")
	if err != nil {
		t.Fatal(err)
	}
	if e.Lifecycle.Replacement != nil || e.Lifecycle.Message != "use A" {
		t.Fatalf("B's lifecycle: %+v, want the message without the replacement that closes a cycle", e.Lifecycle)
	}
}
