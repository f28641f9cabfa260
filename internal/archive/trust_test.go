package archive_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/agora-registry/registry/internal/protocol"
	"strings"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/archive"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store"
)

// hostileArchive is an archive of one document and its record.
func hostileArchive(t *testing.T, content, record string) []byte {
	t.Helper()
	d := digest(t, []byte(content))
	return buildTar(t, true,
		tarEntry{name: "documents/" + d.Hex() + ".json", body: []byte(`{"digest":"` + d.Hex() + `",` + record + `}`)},
		docEntry(t, content))
}

// TestImportedRecordIsCleanedLikeAPublish: what a record adds beside the
// bytes goes through the publish path's cleaning. A title with a bidi
// override, an ANSI escape and a NUL is stored as a publish would store it;
// a title for a document that has its own does not replace it; the
// examples' origin and a reserved publisher are not believed.
func TestImportedRecordIsCleanedLikeAPublish(t *testing.T) {
	st := openSQLite(t)
	ctx := context.Background()
	untitled := "no heading, no front matter\n"
	dirty := "Weather \u202eLOCIFFO\u202c \u001b[31mred\u001b[0m\u0000 end"
	rep := importBytes(t, st, hostileArchive(t, untitled,
		`"title":`+jsonString(dirty)+`,"description":"line\u0007bell","origin":"example","publisher":"examples","createdAt":"2025-01-01T00:00:00Z"`), archive.Limits{})
	if rep.New != 1 || rep.Failed != 0 {
		t.Fatalf("report %+v", rep)
	}
	e, err := st.Get(ctx, digest(t, []byte(untitled)), false)
	if err != nil {
		t.Fatal(err)
	}
	published, err := registry.PrepareDocument(registry.PublishRequest{Content: []byte(untitled), Given: protocol.Given{Title: dirty, Description: "line\u0007bell"}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if e.Metadata.Title != published.Document.Metadata.Title || strings.ContainsAny(e.Metadata.Title, "\u202e\u202c\u001b\u0000") {
		t.Errorf("imported title %q, a publish stores %q", e.Metadata.Title, published.Document.Metadata.Title)
	}
	if e.Metadata.Description != published.Document.Metadata.Description {
		t.Errorf("imported description %q, a publish stores %q", e.Metadata.Description, published.Document.Metadata.Description)
	}
	if e.Origin != archive.ImportOrigin || e.Publisher != archive.ImportPublisher {
		t.Errorf("origin %q publisher %q: the archive's claims were believed", e.Origin, e.Publisher)
	}

	titled := "---\nname: Its Own Title\n---\nbody\n"
	importBytes(t, st, hostileArchive(t, titled, `"title":"Official Weather Protocol","origin":""`), archive.Limits{})
	if e, _ := st.Get(ctx, digest(t, []byte(titled)), false); e.Metadata.Title != "Its Own Title" {
		t.Errorf("a record replaced the document's own title with %q", e.Metadata.Title)
	}

	// Even when publishers are kept (a restore), a malformed one refuses
	// the record; the document comes in as a plain import.
	bad := "# Bad publisher\n"
	rep = importBytes(t, st, hostileArchive(t, bad, `"origin":"","publisher":"Not A Name"`), archive.Limits{KeepPublishers: true})
	if rep.Failed != 1 || rep.New != 1 {
		t.Fatalf("malformed publisher: %+v", rep)
	}
}

// TestBackdatedRecordIsRefused: a creation time before any Agora document
// existed is a lie; the record is refused and the document imported as new.
func TestBackdatedRecordIsRefused(t *testing.T) {
	st := openSQLite(t)
	content := "# Claims to be the original\n"
	before := time.Now()
	rep := importBytes(t, st, hostileArchive(t, content, `"origin":"","createdAt":"2001-09-09T01:46:40Z"`), archive.Limits{})
	if rep.Failed != 1 || rep.New != 1 || codes(rep)["documents/"+digest(t, []byte(content)).Hex()+".json"] != "invalid_record" {
		t.Fatalf("report %+v", rep)
	}
	e, err := st.Get(context.Background(), digest(t, []byte(content)), false)
	if err != nil || e.CreatedAt.Before(before.Add(-time.Second)) {
		t.Fatalf("stored created %v (%v): the backdated time was kept", e.CreatedAt, err)
	}
}

// TestHostileArchiveChangesNoExistingEntry: an archive that names
// documents stored here, withdrawn, with other titles, tags, origins,
// publishers and times, changes nothing about them.
func TestHostileArchiveChangesNoExistingEntry(t *testing.T) {
	st := openSQLite(t)
	ctx := context.Background()
	svc := registry.New(st, registry.Config{})
	content := "---\nname: Official\ndescription: the real one\n---\nbody\n"
	pub, err := svc.PublishRequest(ctx, registry.PublishRequest{Content: []byte(content), Publisher: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	before := pub.Entry
	rep := importBytes(t, st, hostileArchive(t, content, fmt.Sprintf(
		`"title":"Hijacked","extraTags":["pwned"],"origin":"https://evil.example","publisher":"mallory","createdAt":"2024-02-02T00:00:00Z","withdrawnAt":%q,"withdrawReason":"gone"`,
		time.Now().UTC().Format(time.RFC3339))), archive.Limits{KeepPublishers: true})
	if rep.Existing != 1 || rep.Withdrawn != 0 || rep.WithdrawalsSkipped != 1 {
		t.Fatalf("report %+v", rep)
	}
	after, err := st.Get(ctx, before.Digest, false)
	if errors.Is(err, store.ErrWithdrawn) {
		t.Fatal("the archive withdrew a document that already existed")
	}
	if err != nil || after.Metadata.Title != before.Metadata.Title || after.Origin != before.Origin || after.Publisher != "acme" ||
		!after.CreatedAt.Equal(before.CreatedAt) || strings.Join(after.Metadata.Tags, ",") != strings.Join(before.Metadata.Tags, ",") {
		t.Fatalf("the existing entry changed: before %+v\nafter %+v (%v)", before, after, err)
	}
}

func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		if r < 0x20 || r == '"' || r == '\\' || r >= 0x2000 {
			fmt.Fprintf(&b, `\u%04x`, r)
			continue
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}
