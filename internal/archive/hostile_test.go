package archive_test

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/archive"
	"github.com/agora-registry/registry/internal/store"
)

// codes maps each failed entry to its error code.
func codes(rep archive.Report) map[string]string {
	out := map[string]string{}
	for _, e := range rep.Errors {
		code := "unclassified"
		if ae := apperr.As(e.Err); ae != nil {
			code = ae.Code
		}
		out[e.Entry] = code
	}
	return out
}

func TestHostileEntriesAreRefusedOneByOne(t *testing.T) {
	st := openSQLite(t)
	good1, good2 := "# Good one\n", "# Good two\n"
	tampered := docEntry(t, "# Original\n")
	tampered.body = []byte("# Tampered\n")
	invalidUTF8 := "# Bad \xff bytes\n"
	nul := "# NUL \x00 inside\n"
	big := strings.Repeat("x", 2000)
	bigEntry := docEntry(t, big)
	wrongRecord := tarEntry{name: "documents/" + digest(t, []byte(good2)).Hex() + ".json",
		body: []byte(`{"digest":"` + digest(t, []byte(good1)).Hex() + `","origin":"x"}`)}

	arc := buildTar(t, true,
		docEntry(t, good1),
		tarEntry{name: "../../etc/evil.md", body: []byte("# evil\n")},
		tarEntry{name: "/abs/" + digest(t, []byte("# a\n")).Hex() + ".md", body: []byte("# a\n")},
		tarEntry{name: "documents/../../" + digest(t, []byte("# b\n")).Hex() + ".md", body: []byte("# b\n")},
		tarEntry{name: "documents/" + strings.ToUpper(digest(t, []byte("# c\n")).Hex()) + ".md", body: []byte("# c\n")},
		tarEntry{name: "documents/" + digest(t, []byte("# l\n")).Hex() + ".md", typeflag: tar.TypeSymlink, linkname: "/etc/passwd"},
		tarEntry{name: "documents/x", typeflag: tar.TypeDir},
		tampered,
		tarEntry{name: "documents/" + digest(t, []byte(invalidUTF8)).Hex() + ".md", body: []byte(invalidUTF8)},
		tarEntry{name: "documents/" + digest(t, []byte(nul)).Hex() + ".md", body: []byte(nul)},
		bigEntry,
		tarEntry{name: "documents/" + digest(t, []byte("# j\n")).Hex() + ".json", body: []byte("{not json")},
		wrongRecord,
		docEntry(t, good2),
	)
	rep, err := archive.ImportArchive(context.Background(), st, bytes.NewReader(arc), archive.Limits{MaxDocumentBytes: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if rep.New != 2 {
		t.Fatalf("good documents not both imported: %+v", rep)
	}
	got := codes(rep)
	want := map[string]string{
		"../../etc/evil.md": "archive_entry_name",
		"/abs/" + digest(t, []byte("# a\n")).Hex() + ".md":                       "archive_entry_name",
		"documents/../../" + digest(t, []byte("# b\n")).Hex() + ".md":            "archive_entry_name",
		"documents/" + strings.ToUpper(digest(t, []byte("# c\n")).Hex()) + ".md": "archive_entry_name",
		"documents/" + digest(t, []byte("# l\n")).Hex() + ".md":                  "archive_entry_type",
		"documents/x": "archive_entry_name",
		tampered.name: "hash_mismatch",
		"documents/" + digest(t, []byte(invalidUTF8)).Hex() + ".md": "invalid_utf8",
		"documents/" + digest(t, []byte(nul)).Hex() + ".md":         "nul_byte",
		bigEntry.name: "document_too_large",
		"documents/" + digest(t, []byte("# j\n")).Hex() + ".json": "invalid_record",
		wrongRecord.name: "invalid_record",
	}
	for name, code := range want {
		if got[name] != code {
			t.Errorf("entry %q: code %q, want %q", name, got[name], code)
		}
	}
	if rep.Failed != len(want) || len(got) != len(want) {
		t.Errorf("failed %d (%v), want %d", rep.Failed, got, len(want))
	}
	for _, e := range rep.Errors {
		if e.Entry == tampered.name && !strings.Contains(e.Error(), "tampered") {
			t.Errorf("the tampered entry's message is unclear: %v", e)
		}
	}
	// The tampered bytes are stored under no digest.
	if _, err := st.Get(context.Background(), digest(t, tampered.body), false); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("tampered content stored: %v", err)
	}
	if s, _ := st.Stats(context.Background()); s.Documents != 2 {
		t.Errorf("store holds %d documents", s.Documents)
	}
}

func TestHugeEntryIsSkippedWithoutReadingItIntoMemory(t *testing.T) {
	st := openSQLite(t)
	// 16 MiB of one repeated byte compresses to a few KB; the cap is 1 KB.
	big := bytes.Repeat([]byte("a"), 16<<20)
	arc := buildTar(t, true,
		tarEntry{name: "documents/" + digest(t, big).Hex() + ".md", body: big},
		docEntry(t, "# after the big one\n"))
	rep, err := archive.ImportArchive(context.Background(), st, bytes.NewReader(arc), archive.Limits{MaxDocumentBytes: 1024})
	if err != nil {
		t.Fatal(err)
	}
	if rep.New != 1 || rep.Failed != 1 {
		t.Fatalf("report %+v", rep)
	}
}

func TestTarBombOfTinyEntriesStops(t *testing.T) {
	st := openSQLite(t)
	var entries []tarEntry
	for i := range 50 {
		entries = append(entries, docEntry(t, fmt.Sprintf("# doc %d\n", i)))
	}
	rep, err := archive.ImportArchive(context.Background(), st, bytes.NewReader(buildTar(t, true, entries...)), archive.Limits{MaxEntries: 20})
	if apperr.As(err) == nil || apperr.As(err).Code != "archive_too_large" {
		t.Fatalf("err = %v", err)
	}
	if rep.New != 20 {
		t.Fatalf("the entries before the limit were not kept: %+v", rep)
	}
}

func TestDecompressionBombStops(t *testing.T) {
	st := openSQLite(t)
	var entries []tarEntry
	for i := range 10 {
		entries = append(entries, docEntry(t, fmt.Sprintf("# doc %d\n%s", i, strings.Repeat("z", 4000))))
	}
	_, err := archive.ImportArchive(context.Background(), st, bytes.NewReader(buildTar(t, true, entries...)), archive.Limits{MaxArchiveBytes: 16 << 10})
	if apperr.As(err) == nil || apperr.As(err).Code != "archive_too_large" {
		t.Fatalf("err = %v", err)
	}
}

func TestNotAnArchive(t *testing.T) {
	st := openSQLite(t)
	for name, input := range map[string][]byte{
		"empty":       nil,
		"text":        []byte("# just markdown\n"),
		"broken gzip": {0x1f, 0x8b, 0x08, 0, 0, 0},
		"gzip of text": func() []byte {
			var b bytes.Buffer
			w := gzipWriter(&b)
			w.Write(bytes.Repeat([]byte("not a tar "), 100))
			w.Close()
			return b.Bytes()
		}(),
	} {
		_, err := archive.ImportArchive(context.Background(), st, bytes.NewReader(input), archive.Limits{})
		if ae := apperr.As(err); ae == nil || ae.Code != "invalid_archive" {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

func TestTruncatedArchiveKeepsWhatCameBefore(t *testing.T) {
	src, dst := openSQLite(t), openSQLite(t)
	ctx := context.Background()
	var nds []store.NewDocument
	for i := range 200 {
		nds = append(nds, store.NewDocument{Document: prepare(t, fmt.Sprintf("# doc %d\n\n%s\n", i, strings.Repeat("filler ", 200)))})
	}
	if _, err := src.PutMany(ctx, nds); err != nil {
		t.Fatal(err)
	}
	arc := export(t, src)
	cut := arc[:len(arc)/2]
	rep, err := archive.ImportArchive(ctx, dst, bytes.NewReader(cut), archive.Limits{})
	if ae := apperr.As(err); ae == nil || ae.Code != "invalid_archive" || !strings.Contains(ae.Message, "cut short") {
		t.Fatalf("err = %v", err)
	}
	if rep.New == 0 || rep.New >= 200 {
		t.Fatalf("report %+v", rep)
	}
	// Importing the whole archive afterwards completes the copy.
	rep = importBytes(t, dst, arc, archive.Limits{})
	if rep.New+rep.Existing != 200 || rep.New == 200 {
		t.Fatalf("report %+v", rep)
	}
}

func TestUnsupportedManifestIsRefused(t *testing.T) {
	st := openSQLite(t)
	arc := buildTar(t, true,
		tarEntry{name: "manifest.json", body: []byte(`{"format":"agora-registry-archive","version":99}`)},
		docEntry(t, "# x\n"))
	_, err := archive.ImportArchive(context.Background(), st, bytes.NewReader(arc), archive.Limits{})
	if ae := apperr.As(err); ae == nil || ae.Code != "invalid_archive" || !strings.Contains(ae.Message, "version 99") {
		t.Fatalf("err = %v", err)
	}
	if s, _ := st.Stats(context.Background()); s.Documents != 0 {
		t.Fatal("documents of an unsupported archive were imported")
	}
}

func TestSummaryMismatchIsAWarning(t *testing.T) {
	st := openSQLite(t)
	arc := buildTar(t, false, // a plain tar is accepted too
		tarEntry{name: "manifest.json", body: []byte(`{"format":"agora-registry-archive","version":1,"engine":"sqlite"}`)},
		docEntry(t, "# x\n"),
		tarEntry{name: "summary.json", body: []byte(`{"documents":5}`)})
	rep := importBytes(t, st, arc, archive.Limits{})
	if rep.New != 1 || len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "announces 5 documents") {
		t.Fatalf("report %+v", rep)
	}
}

func TestRecordWithoutDocumentIsReported(t *testing.T) {
	st := openSQLite(t)
	d := digest(t, []byte("# missing\n"))
	arc := buildTar(t, true, tarEntry{name: "documents/" + d.Hex() + ".json", body: []byte(`{"digest":"` + d.Hex() + `"}`)})
	rep := importBytes(t, st, arc, archive.Limits{})
	if rep.Failed != 1 || !strings.Contains(rep.Errors[0].Error(), "without its document") {
		t.Fatalf("report %+v", rep)
	}
}

// A record cannot smuggle in bad metadata: oversized fields are refused,
// and a record's future creation time is not believed.
func TestHostileRecords(t *testing.T) {
	st := openSQLite(t)
	content := "# r\n"
	d := digest(t, []byte(content))
	rec := func(body string) []byte {
		return buildTar(t, true, tarEntry{name: "documents/" + d.Hex() + ".json", body: []byte(body)}, docEntry(t, content))
	}
	for name, body := range map[string]string{
		"long origin": `{"digest":"` + d.Hex() + `","origin":"` + strings.Repeat("o", 5000) + `"}`,
		"future":      `{"digest":"` + d.Hex() + `","createdAt":"2999-01-01T00:00:00Z"}`,
		"many tags":   `{"digest":"` + d.Hex() + `","extraTags":[` + strings.TrimSuffix(strings.Repeat(`"t",`, 50), ",") + `]}`,
		"bad digest":  `{"digest":"nope"}`,
		"huge":        `{"digest":"` + d.Hex() + `","origin":"` + strings.Repeat("o", 70<<10) + `"}`,
	} {
		rep := importBytes(t, st, rec(body), archive.Limits{})
		if rep.Failed != 1 || codes(rep)["documents/"+d.Hex()+".json"] != "invalid_record" {
			t.Errorf("%s: %+v", name, rep)
		}
		// The document itself still imports, as a plain import.
		e, err := st.Get(context.Background(), d, false)
		if err != nil || e.Origin != archive.ImportOrigin {
			t.Errorf("%s: %v origin %q", name, err, e.Origin)
		}
	}
}
