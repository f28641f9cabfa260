package archive_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/archive"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/sqlite"
)

func openSQLite(t testing.TB) store.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "registry.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func prepare(t testing.TB, content string) protocol.Document {
	t.Helper()
	doc, err := protocol.Prepare([]byte(content), 0)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func digest(t testing.TB, content []byte) protocol.Digest {
	t.Helper()
	sums, err := protocol.Hash(content)
	if err != nil {
		t.Fatal(err)
	}
	return sums.SHA1
}

// seed fills a store with documents that exercise every field an archive
// must carry: extra tags, origins, old creation times, tombstones, a title
// given beside the document, bytes that must not be normalised.
func seed(t testing.TB, st store.Store) {
	t.Helper()
	ctx := context.Background()
	old := time.Date(2024, 3, 4, 5, 6, 7, 123456000, time.UTC)
	withdrawnAt := time.Date(2024, 1, 2, 3, 4, 5, 654321000, time.UTC)

	fallback := prepare(t, "plain text without heading or paragraph structure?\n")
	fallback.Metadata.Title = "Given Beside" // as a publish fills a missing title
	fallback.Lints = slices.DeleteFunc(fallback.Lints, func(l protocol.Lint) bool { return l.Code == protocol.LintMissingTitle })

	docs := []store.NewDocument{
		{Document: prepare(t, "---\nname: Weather Protocol\ndescription: Forecasts.\ntags: [weather, forecast]\n---\n\n# Weather\n"),
			ExtraTags: []string{"extra-one", "weather"}, Publisher: "acme"},
		{Document: prepare(t, "# No Front Matter\r\n\r\nCRLF endings, trailing spaces   \r\n"),
			Origin: "https://upstream.example/registry", CreatedAt: old},
		{Document: prepare(t, "---\nname: Withdrawn One\ndescription: Gone.\n---\nbody\n"),
			Origin: "import", WithdrawnAt: &withdrawnAt, WithdrawReason: "duplicate of another protocol"},
		{Document: prepare(t, "---\ntitle: Ünïcödé 天気\ndescription: «quotes» and emoji 🌦\ntags: [i18n]\nsupersedes: a9993e364706816aba3e25717850c26c9cd0d89d\n---\n\ntext\n")},
		{Document: fallback, Publisher: "someone-else"},
	}
	for _, nd := range docs {
		if _, _, err := st.Put(ctx, nd); err != nil {
			t.Fatal(err)
		}
	}
	later := prepare(t, "# Withdrawn later\n\nby an admin\n")
	if _, _, err := st.Put(ctx, store.NewDocument{Document: later}); err != nil {
		t.Fatal(err)
	}
	if err := st.Withdraw(ctx, later.Sums.SHA1, "spam"); err != nil {
		t.Fatal(err)
	}
	// Lifecycles: the weather document deprecated for the Unicode one, the
	// fallback deprecated and made active again.
	weather, unicode, fallbackD := docs[0].Document.Sums.SHA1, docs[3].Document.Sums.SHA1, fallback.Sums.SHA1
	for _, c := range []struct {
		d protocol.Digest
		c store.StatusChange
	}{
		{weather, store.StatusChange{Status: entity.StatusDeprecated, Message: "use «the new one»", Replacement: &unicode, Actor: "acme"}},
		{fallbackD, store.StatusChange{Status: entity.StatusDeprecated, Message: "for a while", Actor: "someone-else"}},
		{fallbackD, store.StatusChange{Status: entity.StatusActive, Actor: "admin:ops"}},
	} {
		if _, err := st.SetStatus(ctx, c.d, c.c); err != nil {
			t.Fatal(err)
		}
	}
}

// snapshot is everything a store holds about its documents, in a form two
// engines can be compared by.
type snapshotEntry struct {
	Content        string
	SHA256         [32]byte
	Size           int
	Title          string
	Description    string
	Multiround     bool
	Tags           string
	Version        string
	Supersedes     string
	Authors        string
	License        string
	FrontMatter    bool
	Lints          string
	Origin         string
	Publisher      string
	CreatedAt      int64 // µs: both engines keep microseconds
	WithdrawnAt    int64
	WithdrawReason string
	// The lifecycle: status, message, replacement, time (µs) and the
	// history, one "µs actor status message replacement" line per event.
	Status  string
	History string
}

func snapshot(t testing.TB, st store.Store) map[protocol.Digest]snapshotEntry {
	t.Helper()
	out := map[protocol.Digest]snapshotEntry{}
	err := st.Each(context.Background(), func(e entity.Entry) error {
		var lints []string
		for _, l := range e.Lints {
			lints = append(lints, l.Code)
		}
		s := snapshotEntry{
			Content: string(e.Content), SHA256: e.SHA256, Size: e.Size,
			Title: e.Metadata.Title, Description: e.Metadata.Description, Multiround: e.Metadata.Multiround,
			Tags: strings.Join(e.Metadata.Tags, ","), Version: e.Metadata.Version,
			Authors: strings.Join(e.Metadata.Authors, ","), License: e.Metadata.License, FrontMatter: e.Metadata.FrontMatter,
			Lints: strings.Join(lints, ","), Origin: e.Origin, Publisher: e.Publisher, CreatedAt: e.CreatedAt.UnixMicro(),
			WithdrawReason: e.WithdrawReason,
		}
		if e.Metadata.Supersedes != nil {
			s.Supersedes = e.Metadata.Supersedes.Hex()
		}
		if e.WithdrawnAt != nil {
			s.WithdrawnAt = e.WithdrawnAt.UnixMicro()
		}
		s.Status, s.History = lifecycleText(t, st, e)
		out[e.Digest] = s
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func compareSnapshots(t testing.TB, want, got map[protocol.Digest]snapshotEntry) {
	t.Helper()
	if len(want) != len(got) {
		t.Errorf("%d documents, want %d", len(got), len(want))
	}
	for d, w := range want {
		g, ok := got[d]
		if !ok {
			t.Errorf("%s missing", d.Hex())
			continue
		}
		if g != w {
			t.Errorf("%s differs:\n got %+v\nwant %+v", d.Hex(), g, w)
		}
	}
}

func export(t testing.TB, st store.Store) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := archive.Export(context.Background(), st, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// tarEntry is one entry of a hand-built (hostile) archive.
type tarEntry struct {
	name     string
	typeflag byte
	body     []byte
	linkname string
}

func buildTar(t testing.TB, gz bool, entries ...tarEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	var w interface {
		Write([]byte) (int, error)
		Close() error
	}
	if gz {
		w = gzip.NewWriter(&buf)
	} else {
		w = nopCloser{&buf}
	}
	tw := tar.NewWriter(w)
	for _, e := range entries {
		typ := e.typeflag
		if typ == 0 {
			typ = tar.TypeReg
		}
		size := int64(len(e.body))
		if typ != tar.TypeReg {
			size = 0
		}
		hdr := &tar.Header{Name: e.name, Typeflag: typ, Mode: 0o644, Size: size, Linkname: e.linkname, ModTime: time.Unix(1e9, 0)}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if size > 0 {
			if _, err := tw.Write(e.body); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

type nopCloser struct{ *bytes.Buffer }

func (nopCloser) Close() error { return nil }

func docEntry(t testing.TB, content string) tarEntry {
	return tarEntry{name: "documents/" + digest(t, []byte(content)).Hex() + ".md", body: []byte(content)}
}

func gzipWriter(w *bytes.Buffer) *gzip.Writer { return gzip.NewWriter(w) }

// lifecycleText spells an entry's lifecycle and history for comparison.
func lifecycleText(t testing.TB, st store.Store, e entity.Entry) (string, string) {
	t.Helper()
	hex := func(d *protocol.Digest) string {
		if d == nil {
			return "-"
		}
		return d.Hex()
	}
	micros := func(at *time.Time) int64 {
		if at == nil {
			return 0
		}
		return at.UnixMicro()
	}
	lc := e.Lifecycle
	status := fmt.Sprintf("%s %q %s %d", e.Status(), lc.Message, hex(lc.Replacement), micros(lc.ChangedAt))
	h, err := st.History(context.Background(), e.Digest)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, ev := range h {
		lines = append(lines, fmt.Sprintf("%d %s %s %q %s", ev.At.UnixMicro(), ev.Actor, ev.Status, ev.Message, hex(ev.Replacement)))
	}
	return status, strings.Join(lines, "\n")
}
