package html_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/adoption/sketch"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// The popular listing's cards and the protocol page show distinct
// clients: a document fetched 3,000 times by one client ranks below one
// fetched by three, and says so.
func TestPopularShowsClientsNotFetches(t *testing.T) {
	ts := startServer(t, serverOptions{openPublish: true})
	ctx := context.Background()
	var hexes []string
	var digests []protocol.Digest
	for _, text := range []string{"# Loud\n\nOne client, many fetches.\n", "# Shared\n\nThree clients.\n"} {
		res, err := ts.svc.Publish(ctx, []byte(text), nil, "")
		if err != nil {
			t.Fatal(err)
		}
		hexes = append(hexes, res.Entry.Digest.Hex())
		digests = append(digests, res.Entry.Digest)
	}
	loud, shared := hexes[0], hexes[1]
	if err := ts.st.AddAdoption(ctx, time.Now(), []store.AdoptionDelta{
		{Digest: digests[0], Fetches: 3000, Clients: sketch.Of([]uint64{1})},
		{Digest: digests[1], Fetches: 3, Clients: sketch.Of([]uint64{1, 2, 3})},
	}); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, ts.URL)
	_, body := c.get("/protocols?sort=popular", "")
	first, second := strings.Index(body, "/protocols/"+shared), strings.Index(body, "/protocols/"+loud)
	if first < 0 || second < first {
		t.Fatalf("popular does not list the shared protocol before the loud one:\n%s", body)
	}
	if !strings.Contains(body, "3 clients, 0 agents (30 days)") || !strings.Contains(body, "1 client, 0 agents (30 days)") {
		t.Fatalf("the cards lack their clients:\n%s", body)
	}
	_, page := c.get("/protocols/"+loud, "")
	if !strings.Contains(page, `<span id="adoption-clients">1 distinct client</span>`) || !strings.Contains(page, "3000 raw fetches") {
		t.Fatalf("the protocol page lacks clients beside raw fetches:\n%s", page)
	}
}
