package main

import (
	"context"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/config"
	"github.com/agora-registry/registry/internal/follow"
	"github.com/agora-registry/registry/internal/store"
)

// TestFollowReset: the reset prints a stopped upstream's evidence and
// changes nothing without --yes; with it the fork is cleared and the
// upstream replays from its first record.
func TestFollowReset(t *testing.T) {
	dir := t.TempDir()
	const up = "https://up.example"
	ev := follow.Evidence{Upstream: up, Reason: "two checkpoints of size 3 have different roots", Older: "older note", Newer: "newer note", OlderSize: 3, NewerSize: 3}
	st, _, err := openStore(context.Background(), config.Database{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SaveFollowState(context.Background(), store.FollowState{Upstream: up, Applied: 3, VerifierKey: "k", Checkpoint: []byte("cp"), Forked: true, Evidence: ev.String()}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	state := func() store.FollowState {
		st, _, err := openStore(context.Background(), config.Database{DataDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		s, err := st.FollowState(context.Background(), up)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}

	code, out, _ := runWith(t, nil, "follow", "reset", "--data-dir", dir, up)
	if code == 0 || !strings.Contains(out, "older note") || !strings.Contains(out, "newer note") || !strings.Contains(out, ev.Reason) {
		t.Fatalf("reset without --yes: exit %d, output %q: want the evidence and a failure", code, out)
	}
	if s := state(); !s.Forked || s.Evidence == "" || s.Applied != 3 {
		t.Fatalf("reset without --yes changed the state: %+v", s)
	}
	code, out, errOut := runWith(t, nil, "follow", "reset", "--data-dir", dir, "--yes", up)
	if code != 0 || !strings.Contains(out, "older note") {
		t.Fatalf("reset --yes: exit %d, %q %q", code, out, errOut)
	}
	if s := state(); s.Forked || s.Evidence != "" || s.Applied != 0 || len(s.Checkpoint) != 0 || s.VerifierKey != "k" {
		t.Fatalf("state after reset --yes: %+v", s)
	}
	if code, out, _ := runWith(t, nil, "follow", "reset", "--data-dir", dir, up); code != 0 || !strings.Contains(out, "not stopped") {
		t.Fatalf("reset of a running upstream: exit %d, %q", code, out)
	}
	if code, _, errOut := runWith(t, nil, "follow", "reset", "--data-dir", dir, "https://never.example"); code == 0 || !strings.Contains(errOut, "never followed") {
		t.Fatalf("reset of an upstream never followed: exit %d, %q", code, errOut)
	}
}
