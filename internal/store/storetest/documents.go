package storetest

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// maxSizeDocument is a valid document of exactly DefaultMaxDocumentBytes.
func maxSizeDocument() string {
	head := "---\nname: Largest document\ndescription: exactly at the size limit\n---\n\n"
	var b strings.Builder
	b.WriteString(head)
	line := "filler text to reach the limit 0123456789\n"
	for b.Len()+len(line) <= protocol.DefaultMaxDocumentBytes {
		b.WriteString(line)
	}
	b.WriteString(strings.Repeat("z", protocol.DefaultMaxDocumentBytes-b.Len()))
	return b.String()
}

func testPut(t *testing.T, open Opener) {
	t.Run("ByteExactRoundTrip", func(t *testing.T) {
		s := open(t)
		docs := map[string]string{
			"crlf":             "---\r\nname: CRLF document\r\ndescription: Windows line endings\r\n---\r\n\r\n# CRLF\r\n\r\nBody.\r\n",
			"no final newline": "# No final newline\n\nThe last line has no break.",
			"extra newlines":   "# Trailing blank lines\n\nText.\n\n\n",
			"leading spaces":   "  \n\t# Indented\n\nTabs\tand  double  spaces  \n",
			"unicode":          "---\nname: Prévisions météo 天気 🌦️\ndescription: Émoji and scripts — ℕ ∑ 👩‍💻\n---\n\nZalgo: z̸̢a̵l̷g̶o, RTL: שלום, combining: e\u0301\n",
			"max size":         maxSizeDocument(),
		}
		for name, content := range docs {
			nd := prepare(t, content)
			e := put(t, s, nd)
			if e.Digest != nd.Document.Sums.SHA1 {
				t.Fatalf("%s: Put returned digest %s, want %s", name, e.Digest, nd.Document.Sums.SHA1)
			}
			if e.SHA256 != sha256.Sum256([]byte(content)) || e.Size != len(content) {
				t.Fatalf("%s: Put returned SHA-256/size %x/%d, want the document's", name, e.SHA256, e.Size)
			}
			if e.CreatedAt.IsZero() {
				t.Fatalf("%s: CreatedAt is zero", name)
			}
			got, _, err := s.Content(ctx(t), e.Digest)
			noErr(t, name+": Content", err)
			if !bytes.Equal(got, []byte(content)) {
				t.Fatalf("%s: Content changed the bytes (%d bytes stored, %d returned)", name, len(content), len(got))
			}
			full, err := s.Get(ctx(t), e.Digest, true)
			noErr(t, name+": Get", err)
			if !bytes.Equal(full.Content, []byte(content)) {
				t.Fatalf("%s: Get with content changed the bytes", name)
			}
		}
		if len(maxSizeDocument()) != protocol.DefaultMaxDocumentBytes {
			t.Fatalf("test bug: max-size document is %d bytes", len(maxSizeDocument()))
		}
	})

	t.Run("Idempotent", func(t *testing.T) {
		s := open(t)
		nd := prepare(t, simpleDoc("Idempotent", "stored once", []string{"once"}, "Body."))
		first := put(t, s, nd)
		second, created, err := s.Put(ctx(t), nd)
		noErr(t, "second Put", err)
		if created {
			t.Fatal("second Put of the same document returned created=true")
		}
		sameEntry(t, "second Put", second, first)
		// A later Put with other extra tags or origin does not rewrite the row.
		nd.ExtraTags = []string{"other"}
		nd.Origin = "import"
		third, created, err := s.Put(ctx(t), nd)
		noErr(t, "third Put", err)
		if created {
			t.Fatal("third Put returned created=true")
		}
		sameEntry(t, "third Put", third, first)
		st, err := s.Stats(ctx(t))
		noErr(t, "Stats", err)
		if st.Documents != 1 {
			t.Fatalf("Stats.Documents = %d after three Puts of one document, want 1", st.Documents)
		}
	})

	t.Run("ConcurrentIdempotent", func(t *testing.T) {
		s := open(t)
		nd := prepare(t, simpleDoc("Race", "sixteen publishers at once", []string{"race"}, "Body."))
		const writers = 16
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			created int
			entries []entity.Entry
			errs    []error
		)
		start := make(chan struct{})
		for range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				e, c, err := s.Put(ctx(t), nd)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					errs = append(errs, err)
					return
				}
				if c {
					created++
				}
				entries = append(entries, e)
			}()
		}
		close(start)
		wg.Wait()
		if len(errs) > 0 {
			t.Fatalf("%d of %d concurrent Puts failed, first: %v", len(errs), writers, errs[0])
		}
		if created != 1 {
			t.Fatalf("%d concurrent Puts reported created=true, want exactly 1", created)
		}
		for _, e := range entries[1:] {
			sameEntry(t, "concurrent Put", e, entries[0])
		}
		st, err := s.Stats(ctx(t))
		noErr(t, "Stats", err)
		if st.Documents != 1 {
			t.Fatalf("Stats.Documents = %d after concurrent Puts of one document, want 1", st.Documents)
		}
	})

	t.Run("PutMany", func(t *testing.T) {
		s := open(t)
		a := prepare(t, simpleDoc("Alpha", "first", nil, "A."))
		b := prepare(t, simpleDoc("Beta", "second", nil, "B."))
		c := prepare(t, simpleDoc("Gamma", "third", nil, "C."))
		put(t, s, a)
		created, err := s.PutMany(ctx(t), []store.NewDocument{a, b, c, b})
		noErr(t, "PutMany", err)
		want := []bool{false, true, true, false}
		if fmt.Sprint(created) != fmt.Sprint(want) {
			t.Fatalf("PutMany created = %v, want %v", created, want)
		}
		for _, nd := range []store.NewDocument{b, c} {
			got, _, err := s.Content(ctx(t), nd.Document.Sums.SHA1)
			noErr(t, "Content after PutMany", err)
			if !bytes.Equal(got, nd.Document.Content) {
				t.Fatal("PutMany stored other bytes")
			}
		}
		created, err = s.PutMany(ctx(t), nil)
		noErr(t, "PutMany of nothing", err)
		if len(created) != 0 {
			t.Fatalf("PutMany of nothing returned %v", created)
		}
		st, err := s.Stats(ctx(t))
		noErr(t, "Stats", err)
		if st.Documents != 3 {
			t.Fatalf("Stats.Documents = %d, want 3", st.Documents)
		}
	})
}

func testGet(t *testing.T, open Opener) {
	s := open(t)
	e := putText(t, s, simpleDoc("Getter", "read me", []string{"read"}, "Body."))

	got, err := s.Get(ctx(t), e.Digest, false)
	noErr(t, "Get without content", err)
	sameEntry(t, "Get", got, e)
	if got.Content != nil {
		t.Fatal("Get without content returned Content")
	}
	got, err = s.Get(ctx(t), e.Digest, true)
	noErr(t, "Get with content", err)
	if len(got.Content) != e.Size {
		t.Fatalf("Get with content returned %d bytes, want %d", len(got.Content), e.Size)
	}

	unknown := protocol.Digest{0xde, 0xad, 0xbe, 0xef}
	_, err = s.Get(ctx(t), unknown, false)
	wantErr(t, "Get of an unknown digest", err, store.ErrNotFound)
	_, err = s.Get(ctx(t), unknown, true)
	wantErr(t, "Get with content of an unknown digest", err, store.ErrNotFound)
	_, _, err = s.Content(ctx(t), unknown)
	wantErr(t, "Content of an unknown digest", err, store.ErrNotFound)
}

func testMetadata(t *testing.T, open Opener) {
	s := open(t)
	previous := putText(t, s, simpleDoc("Weather Protocol", "v1", []string{"weather"}, "Old."))
	content := fmt.Sprintf(`---
name: Weather Protocol v2
description: Query weather forecasts by location and date.
multiround: yes
tags: [Weather, forecast]
version: 2.0.1
supersedes: %s
authors: [Ada Lovelace, Alan Turing]
license: MIT
---

# Weather Protocol v2

Send a JSON object with "location" and "date".
`, previous.Digest.Base64())
	nd := prepare(t, content, "extra", "weather")
	nd.Origin = "https://upstream.example.org"
	e := put(t, s, nd)

	for _, got := range []entity.Entry{e, mustGet(t, s, e.Digest)} {
		m := got.Metadata
		want := nd.Document.Metadata
		switch {
		case m.Title != "Weather Protocol v2" || m.Title != want.Title:
			t.Fatalf("title %q", m.Title)
		case m.Description != want.Description:
			t.Fatalf("description %q, want %q", m.Description, want.Description)
		case !m.Multiround:
			t.Fatal("multiround lost")
		case !sameStrings(m.Tags, []string{"weather", "forecast", "extra"}):
			t.Fatalf("tags %q, want front-matter tags then extra tags without duplicates", m.Tags)
		case m.Version != "2.0.1":
			t.Fatalf("version %q", m.Version)
		case m.Supersedes == nil || *m.Supersedes != previous.Digest:
			t.Fatalf("supersedes %v, want %s", m.Supersedes, previous.Digest)
		case !sameStrings(m.Authors, []string{"Ada Lovelace", "Alan Turing"}):
			t.Fatalf("authors %q", m.Authors)
		case m.License != "MIT":
			t.Fatalf("license %q", m.License)
		case !m.FrontMatter:
			t.Fatal("FrontMatter lost")
		case got.Origin != "https://upstream.example.org":
			t.Fatalf("origin %q", got.Origin)
		case got.Withdrawn() || got.WithdrawReason != "":
			t.Fatal("a new entry is withdrawn")
		}
	}

	// A document without front matter keeps its lints and fallbacks.
	plain := prepare(t, "# Plain heading\n\nFirst paragraph is the description.\n")
	if len(plain.Document.Lints) == 0 {
		t.Fatal("test bug: expected lints for a document without front matter")
	}
	pe := put(t, s, plain)
	for _, got := range []entity.Entry{pe, mustGet(t, s, pe.Digest)} {
		if fmt.Sprint(got.Lints) != fmt.Sprint(plain.Document.Lints) {
			t.Fatalf("lints %v, want %v", got.Lints, plain.Document.Lints)
		}
		m := got.Metadata
		if m.FrontMatter || m.Multiround || m.Supersedes != nil || m.Title != "Plain heading" ||
			m.Description != "First paragraph is the description." || len(m.Tags) != 0 || len(m.Authors) != 0 {
			t.Fatalf("metadata of a plain document: %+v", m)
		}
		if got.Origin != "" {
			t.Fatalf("origin %q, want empty", got.Origin)
		}
	}
}

func mustGet(t testing.TB, s store.Store, d protocol.Digest) entity.Entry {
	t.Helper()
	e, err := s.Get(ctx(t), d, false)
	noErr(t, "Get "+d.Hex(), err)
	return e
}

func testWithdraw(t *testing.T, open Opener) {
	s := open(t)
	nd := prepare(t, simpleDoc("Doomed zanzibar", "soon withdrawn", []string{"doomed", "shared"}, "Body."))
	e := put(t, s, nd)
	keep := putText(t, s, simpleDoc("Kept zanzibar", "stays", []string{"shared"}, "Body."))

	noErr(t, "Withdraw", s.Withdraw(ctx(t), e.Digest, "spam"))

	got, err := s.Get(ctx(t), e.Digest, false)
	wantErr(t, "Get of a withdrawn entry", err, store.ErrWithdrawn)
	if got.Digest != e.Digest || !got.Withdrawn() || got.WithdrawReason != "spam" {
		t.Fatalf("Get of a withdrawn entry returned %+v; want the entry with WithdrawnAt and reason", got)
	}
	if got.WithdrawnAt.Before(e.CreatedAt.Add(-1)) {
		t.Fatalf("WithdrawnAt %v is before CreatedAt %v", got.WithdrawnAt, e.CreatedAt)
	}
	_, _, err = s.Content(ctx(t), e.Digest)
	wantErr(t, "Content of a withdrawn entry", err, store.ErrWithdrawn)

	for _, q := range []store.Query{{}, {Text: "zanzibar"}, {Tags: []string{"shared"}}, {Sort: store.SortName}} {
		p := search(t, s, q)
		if got := hexes(p.Entries); len(got) != 1 || got[0] != keep.Digest.Hex() {
			t.Fatalf("Search(%+v) = %v, want only the kept entry", q, got)
		}
	}
	tags, err := s.Tags(ctx(t), 10)
	noErr(t, "Tags", err)
	for _, tc := range tags {
		if tc.Tag == "doomed" || (tc.Tag == "shared" && tc.Count != 1) {
			t.Fatalf("Tags counts a withdrawn entry: %+v", tags)
		}
	}
	st, err := s.Stats(ctx(t))
	noErr(t, "Stats", err)
	if st.Documents != 1 || st.Withdrawn != 1 {
		t.Fatalf("Stats = %+v, want 1 listed and 1 withdrawn", st)
	}

	again, created, err := s.Put(ctx(t), nd)
	noErr(t, "re-Put of a withdrawn document", err)
	if created || !again.Withdrawn() {
		t.Fatalf("re-Put of a withdrawn document: created=%v withdrawn=%v, want false and true", created, again.Withdrawn())
	}
	_, _, err = s.Content(ctx(t), e.Digest)
	wantErr(t, "Content after re-Put of a withdrawn document", err, store.ErrWithdrawn)
	created2, err := s.PutMany(ctx(t), []store.NewDocument{nd})
	noErr(t, "PutMany of a withdrawn document", err)
	if created2[0] {
		t.Fatal("PutMany of a withdrawn document reported it new")
	}
	_, err = s.Get(ctx(t), e.Digest, true)
	wantErr(t, "Get after PutMany of a withdrawn document", err, store.ErrWithdrawn)

	noErr(t, "second Withdraw", s.Withdraw(ctx(t), e.Digest, "again"))
	wantErr(t, "Withdraw of an unknown digest", s.Withdraw(ctx(t), protocol.Digest{1, 2, 3}, "x"), store.ErrNotFound)
}

func testSuccessors(t *testing.T, open Opener) {
	s := open(t)
	v1 := putText(t, s, simpleDoc("Chain v1", "first", nil, "One."))
	next := func(title string) string {
		return fmt.Sprintf("---\nname: %s\nsupersedes: %s\n---\n\nBody of %s.\n", title, v1.Digest.Hex(), title)
	}
	v2 := putText(t, s, next("Chain v2"))
	v2b := putText(t, s, next("Chain v2 fork"))
	gone := putText(t, s, next("Chain v2 withdrawn"))
	noErr(t, "Withdraw", s.Withdraw(ctx(t), gone.Digest, "bad"))

	succ, err := s.Successors(ctx(t), v1.Digest)
	noErr(t, "Successors", err)
	got := map[string]bool{}
	for _, e := range succ {
		got[e.Digest.Hex()] = true
		if e.Metadata.Supersedes == nil || *e.Metadata.Supersedes != v1.Digest {
			t.Fatalf("successor %s does not supersede v1", e.Digest)
		}
	}
	if len(succ) != 2 || !got[v2.Digest.Hex()] || !got[v2b.Digest.Hex()] {
		t.Fatalf("Successors(v1) = %v, want v2 and its fork only", hexes(succ))
	}
	succ, err = s.Successors(ctx(t), v2.Digest)
	noErr(t, "Successors of the newest", err)
	if len(succ) != 0 {
		t.Fatalf("Successors(v2) = %v, want none", hexes(succ))
	}
	succ, err = s.Successors(ctx(t), protocol.Digest{7})
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Successors of an unknown digest: %v", err)
	}
	if len(succ) != 0 {
		t.Fatal("Successors of an unknown digest returned entries")
	}
}

// testImport covers NewDocument.CreatedAt and WithdrawnAt, which an archive
// import uses to keep the original times and tombstones.
func testImport(t *testing.T, open Opener) {
	s := open(t)
	fresh := putText(t, s, simpleDoc("Fresh import", "now", []string{"imp"}, "Body."))

	old := prepare(t, simpleDoc("Old import", "from 2001", []string{"imp"}, "Body."))
	old.CreatedAt = time.Date(2001, 2, 3, 4, 5, 6, 789000, time.UTC)
	e := put(t, s, old)
	if !sameTime(e.CreatedAt, old.CreatedAt) || !sameTime(mustGet(t, s, e.Digest).CreatedAt, old.CreatedAt) {
		t.Fatalf("imported CreatedAt %v, want %v", e.CreatedAt, old.CreatedAt)
	}
	got := hexes(search(t, s, store.Query{Tags: []string{"imp"}}).Entries)
	if len(got) != 2 || got[0] != fresh.Digest.Hex() || got[1] != e.Digest.Hex() {
		t.Fatalf("newest order %v, want the fresh entry before the one imported from 2001", got)
	}
	// An existing entry keeps its own time.
	again := prepare(t, simpleDoc("Fresh import", "now", []string{"imp"}, "Body."))
	again.CreatedAt = old.CreatedAt
	kept, created, err := s.Put(ctx(t), again)
	noErr(t, "Put of an existing entry with CreatedAt", err)
	if created || !sameTime(kept.CreatedAt, fresh.CreatedAt) {
		t.Fatalf("existing entry: created=%v CreatedAt %v, want false and %v", created, kept.CreatedAt, fresh.CreatedAt)
	}

	tomb := prepare(t, simpleDoc("Withdrawn import", "tombstone", []string{"imp", "tomb"}, "Tombstoned body."))
	when := time.Date(2020, 5, 6, 7, 8, 9, 0, time.UTC)
	tomb.WithdrawnAt = &when
	tomb.WithdrawReason = "legal"
	te, created, err := s.Put(ctx(t), tomb)
	noErr(t, "Put of a withdrawn import", err)
	if !created || te.WithdrawnAt == nil || !sameTime(*te.WithdrawnAt, when) || te.WithdrawReason != "legal" {
		t.Fatalf("withdrawn import: created=%v WithdrawnAt %v reason %q", created, te.WithdrawnAt, te.WithdrawReason)
	}
	_, err = s.Get(ctx(t), te.Digest, false)
	wantErr(t, "Get of a withdrawn import", err, store.ErrWithdrawn)
	_, _, err = s.Content(ctx(t), te.Digest)
	wantErr(t, "Content of a withdrawn import", err, store.ErrWithdrawn)
	if got := search(t, s, store.Query{Text: "tombstoned"}).Entries; len(got) != 0 {
		t.Fatal("a withdrawn import is searchable")
	}
	tags, err := s.Tags(ctx(t), 10)
	noErr(t, "Tags", err)
	for _, tc := range tags {
		if tc.Tag == "tomb" || (tc.Tag == "imp" && tc.Count != 2) {
			t.Fatalf("Tags counts a withdrawn import: %v", tags)
		}
	}
	var exported []entity.Entry
	noErr(t, "Each", s.Each(ctx(t), func(e entity.Entry) error { exported = append(exported, e); return nil }))
	if len(exported) != 3 || exported[0].Digest != e.Digest {
		t.Fatalf("Each visited %v, want 3 entries, the one from 2001 first", hexes(exported))
	}
}
