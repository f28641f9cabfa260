package translog_test

import (
	"testing"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/testing/security"
)

// TestFreshLogThenGrowthIsConsistent: a fresh registry's first checkpoint
// is of the empty tree; a reader that kept it (a follower caught up with
// an empty upstream) must accept the grown tree, not call it a fork.
func TestFreshLogThenGrowthIsConsistent(t *testing.T) {
	srv := security.Start(t, security.Options{})
	v, err := agora.NewLogVerifier(httpClient(t, srv.URL), srv.Log.VerifierKey())
	if err != nil {
		t.Fatal(err)
	}
	empty, _, err := v.Latest(ctx(t))
	if err != nil || empty.N != 0 {
		t.Fatalf("a fresh registry's checkpoint: %+v %v", empty, err)
	}
	publish(t, srv, "Grown", 3)
	integrate(t, srv)
	grown, _, err := v.Latest(ctx(t))
	if err != nil || grown.N != 3 {
		t.Fatalf("the grown checkpoint: %+v %v", grown, err)
	}
	if err := v.Consistent(ctx(t), empty, grown); err != nil {
		t.Fatalf("the empty tree then a tree of 3: %v", err)
	}
}
