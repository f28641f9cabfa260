package translog_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"net/http"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/testing/security"
	"github.com/agora-registry/registry/internal/translog"
)

// The log's serving side, as a standard third-party verifier reads it:
// c2sp.org/tlog-checkpoint and c2sp.org/tlog-tiles.

// TestEmptyCheckpointHasTheEmptyTreeRoot: a fresh log's checkpoint carries
// RFC 6962's root of the empty tree (SHA-256 of nothing), not zeros.
func TestEmptyCheckpointHasTheEmptyTreeRoot(t *testing.T) {
	for _, engine := range security.Engines {
		t.Run(engine, func(t *testing.T) {
			srv := security.Start(t, security.Options{Engine: engine})
			status, _, body := get(t, srv.URL+"/log/checkpoint")
			if status != http.StatusOK {
				t.Fatalf("checkpoint: %d", status)
			}
			text, _, _ := strings.Cut(string(body), "\n\n")
			want := tlog.Hash(sha256.Sum256(nil)).String()
			if lines := strings.Split(text, "\n"); len(lines) != 3 || lines[1] != "0" || lines[2] != want {
				t.Fatalf("the empty log's checkpoint is %q, want size 0 and root %s", text, want)
			}
			head, err := srv.Store.LogHead(ctx(t))
			if err != nil || head.Root != tlog.Hash(sha256.Sum256(nil)) {
				t.Fatalf("the stored empty head's root is %s (%v), want the empty tree's", head.Root, err)
			}
		})
	}
}

// TestC2SPTilesAreServed: tlog-tiles' hash tiles (tile/L/N, no height)
// are sum.golang.org's tiles' bytes, and entry bundles hold the records
// as big-endian uint16 length-prefixed entries; the old paths still work.
func TestC2SPTilesAreServed(t *testing.T) {
	srv := security.Start(t, security.Options{})
	publish(t, srv, "C2SP", 260)
	integrate(t, srv)
	for sumdb, c2sp := range map[string]string{
		"tile/8/0/000": "tile/0/000", "tile/8/0/001.p/4": "tile/0/001.p/4", "tile/8/1/000.p/1": "tile/1/000.p/1",
	} {
		s1, _, want := get(t, srv.URL+"/log/"+sumdb)
		s2, _, got := get(t, srv.URL+"/log/"+c2sp)
		if s1 != http.StatusOK || s2 != http.StatusOK || !bytes.Equal(got, want) {
			t.Fatalf("%s (%d, %d bytes) is not %s (%d, %d bytes)", c2sp, s2, len(got), sumdb, s1, len(want))
		}
	}
	for _, c := range []struct {
		data, bundle string
		n            int
	}{{"tile/8/data/000", "tile/entries/000", 256}, {"tile/8/data/001.p/4", "tile/entries/001.p/4", 4}} {
		_, _, data := get(t, srv.URL+"/log/"+c.data)
		status, _, bundle := get(t, srv.URL+"/log/"+c.bundle)
		if status != http.StatusOK {
			t.Fatalf("%s: %d", c.bundle, status)
		}
		var fromBundle [][]byte
		for len(bundle) >= 2 {
			n := int(binary.BigEndian.Uint16(bundle))
			if len(bundle) < 2+n {
				t.Fatalf("%s: an entry runs past the end", c.bundle)
			}
			fromBundle, bundle = append(fromBundle, bundle[2:2+n]), bundle[2+n:]
		}
		fromData := strings.Split(strings.TrimSuffix(string(data), "\n\n"), "\n\n")
		if len(bundle) != 0 || len(fromBundle) != c.n || len(fromData) != c.n {
			t.Fatalf("%s: %d entries (%d bytes left), %s: %d records; want %d", c.bundle, len(fromBundle), len(bundle), c.data, len(fromData), c.n)
		}
		for i := range fromBundle {
			if string(fromBundle[i]) != fromData[i]+"\n" {
				t.Fatalf("%s entry %d is not the record of %s", c.bundle, i, c.data)
			}
		}
	}
	for _, path := range []string{"tile/0/002", "tile/entries/001.p/5", "tile/2/000.p/1"} {
		if status, _, _ := get(t, srv.URL+"/log/"+path); status != http.StatusNotFound {
			t.Fatalf("%s beyond the tree: %d, want 404", path, status)
		}
	}
	for _, path := range []string{"tile/0/1", "tile/00/000", "tile/0/000.p/256", "tile/0/000.p/0", "tile/0/x000/001", "tile/0/001/000", "tile/entries/000.p/01", "tile/64/000"} {
		if status, _, _ := get(t, srv.URL+"/log/"+path); status != http.StatusBadRequest && status != http.StatusNotFound {
			t.Fatalf("malformed tile path %s: %d, want 400 or 404", path, status)
		}
	}
}

// staleHead is a store whose LogHead lags: records past it exist (another
// process integrated them after this one read the head).
type staleHead struct {
	store.Store
	head store.LogHead
}

func (s staleHead) LogHead(context.Context) (store.LogHead, error) { return s.head, nil }

// TestNoTilePastTheSignedTree: a tile is served only when the tree the
// served checkpoint commits to holds all of it, even when the database
// holds more records (a tile past the tree would let a reader see records
// no signed checkpoint covers).
func TestNoTilePastTheSignedTree(t *testing.T) {
	srv := security.Start(t, security.Options{})
	publish(t, srv, "Old", 5)
	integrate(t, srv)
	old, err := srv.Store.LogHead(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	publish(t, srv, "New", 5)
	integrate(t, srv)
	key, err := translog.LoadKey(ctx(t), srv.Store, "", "")
	if err != nil {
		t.Fatal(err)
	}
	l := translog.New(staleHead{Store: srv.Store, head: old}, key, nil)
	if err := l.Integrate(ctx(t)); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"tile/8/data/000.p/5", "tile/8/0/000.p/5", "tile/entries/000.p/5"} {
		if _, _, err := l.Tile(ctx(t), path); err != nil {
			t.Fatalf("%s within the tree: %v", path, err)
		}
	}
	for _, path := range []string{"tile/8/data/000.p/6", "tile/8/0/000.p/10", "tile/entries/000.p/7", "tile/0/000.p/6"} {
		if _, _, err := l.Tile(ctx(t), path); !errors.Is(err, translog.ErrTileNotFound) {
			t.Fatalf("%s past the signed tree of 5: %v, want ErrTileNotFound", path, err)
		}
	}
}

// TestLookupNeverAnswersAnotherDocument: a database whose index points a
// document at another document's record (written by hand) makes the
// lookup fail; it never answers that record for the document.
func TestLookupNeverAnswersAnotherDocument(t *testing.T) {
	srv := security.Start(t, security.Options{})
	ds := publish(t, srv, "Lookup", 3)
	integrate(t, srv)
	l := translog.New(wrongIndex{Store: srv.Store, from: ds[2], to: ds[0]}, mustLoadKey(t, srv), nil)
	if msg, err := l.Lookup(ctx(t), ds[2]); err == nil {
		t.Fatalf("the lookup of %s answered %q", ds[2].Hex(), msg)
	}
	if _, err := l.Lookup(ctx(t), ds[1]); err != nil {
		t.Fatalf("an honest lookup: %v", err)
	}
}

type wrongIndex struct {
	store.Store
	from, to protocol.Digest
}

func (w wrongIndex) LogLookup(ctx context.Context, d protocol.Digest) (int64, error) {
	if d == w.from {
		d = w.to
	}
	return w.Store.LogLookup(ctx, d)
}

func mustLoadKey(t *testing.T, srv *security.Server) translog.Key {
	key, err := translog.LoadKey(ctx(t), srv.Store, "", "")
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// TestRecordsAttestThePublisher: a publish by a publisher with a verified
// domain, its deprecation naming a replacement and its withdrawal are
// agora-registry/2 records attesting them; what was logged before stays /1.
func TestRecordsAttestThePublisher(t *testing.T) {
	for _, engine := range security.Engines {
		t.Run(engine, func(t *testing.T) {
			srv := security.Start(t, security.Options{Engine: engine})
			if _, err := srv.Store.CreatePublisher(ctx(t), entity.Publisher{Name: "acme", DisplayName: "Acme Inc."}); err != nil {
				t.Fatal(err)
			}
			if err := srv.Store.MarkVerified(ctx(t), "acme", "acme.example", t0); err != nil {
				t.Fatal(err)
			}
			tok := entity.Token{ID: 1, Publisher: "acme", Scopes: []entity.Scope{entity.ScopePublish}}
			a, err := srv.Svc.PublishRequest(ctx(t), registry.PublishRequest{Content: []byte("# Acme's\n\nBody.\n"), Publisher: "acme"})
			if err != nil {
				t.Fatal(err)
			}
			b, err := srv.Svc.PublishRequest(ctx(t), registry.PublishRequest{Content: []byte("# Acme's next\n\nBody.\n"), Publisher: "acme"})
			if err != nil {
				t.Fatal(err)
			}
			repl := b.Entry.Digest
			if _, err := srv.Svc.SetStatus(ctx(t), tok, a.Entry.Digest, registry.StatusRequest{Status: entity.StatusDeprecated, Message: "use next", Replacement: &repl}); err != nil {
				t.Fatal(err)
			}
			integrate(t, srv)
			recs, err := srv.Store.LogRecords(ctx(t), 0, 10)
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != 3 {
				t.Fatalf("%d records, want 3", len(recs))
			}
			for i, r := range recs {
				rec, err := agora.ParseLogRecord(r.Text)
				if err != nil || !strings.HasPrefix(string(r.Text), "agora-registry/2\n") {
					t.Fatalf("record %d: %q %v", i, r.Text, err)
				}
				at := rec.Attested
				if at.Publisher != "acme" || at.PublisherDisplayName != "Acme Inc." || at.PublisherDomain != "acme.example" {
					t.Fatalf("record %d attests %+v", i, at)
				}
				if want := map[bool]string{true: repl.Hex()}[rec.Event == agora.LogEventDeprecate]; at.ReplacedBy != want {
					t.Fatalf("record %d (%s) attests replacement %q, want %q", i, rec.Event, at.ReplacedBy, want)
				}
			}
		})
	}
}
