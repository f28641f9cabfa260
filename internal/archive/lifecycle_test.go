package archive_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/archive"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// bothEngines runs a test on a fresh store of each engine.
func bothEngines(t *testing.T, test func(t *testing.T, st store.Store)) {
	t.Run("sqlite", func(t *testing.T) { test(t, openSQLite(t)) })
	t.Run("postgres", func(t *testing.T) { test(t, openPostgres(t)) })
}

// lifecycleRecord is a record claiming a deprecation for replacement and a
// history of one event by actor.
func lifecycleRecord(d protocol.Digest, replacement protocol.Digest, actor string) string {
	return fmt.Sprintf(`{"digest":%q,"origin":"","status":"deprecated","statusMessage":"use %s","replacement":%q,`+
		`"statusChangedAt":"2025-02-01T00:00:00Z","history":[{"at":"2025-02-01T00:00:00Z","actor":%q,"status":"deprecated","message":"use %s","replacement":%q}]}`,
		d.Hex(), replacement.Hex(), replacement.Hex(), actor, replacement.Hex(), replacement.Hex())
}

// TestImportLifecycleNeedsTrust: an archive that deprecates a document
// stored here in favour of its own changes nothing without
// --keep-lifecycle (the report counts and says what was left); with it,
// the lifecycle lands on documents never changed here and on new ones, and
// a status changed here stays.
func TestImportLifecycleNeedsTrust(t *testing.T) {
	bothEngines(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		official, ours, fresh, attacker := "# Official\n\nthe real one\n", "# Ours\n\nchanged here\n", "# Fresh\n\nnew here\n", "# Attacker\n\nuse me\n"
		dOfficial, dOurs, dFresh, dAttacker := digest(t, []byte(official)), digest(t, []byte(ours)), digest(t, []byte(fresh)), digest(t, []byte(attacker))
		for _, c := range []string{official, ours} {
			if _, _, err := st.Put(ctx, store.NewDocument{Document: prepare(t, c), Publisher: "acme"}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := st.SetStatus(ctx, dOurs, store.StatusChange{Status: entity.StatusDeprecated, Message: "ours", Actor: "acme"}); err != nil {
			t.Fatal(err)
		}
		arc := buildTar(t, true,
			tarEntry{name: "documents/" + dOfficial.Hex() + ".json", body: []byte(lifecycleRecord(dOfficial, dAttacker, "acme"))},
			docEntry(t, official),
			tarEntry{name: "documents/" + dOurs.Hex() + ".json", body: []byte(lifecycleRecord(dOurs, dAttacker, "acme"))},
			docEntry(t, ours),
			tarEntry{name: "documents/" + dFresh.Hex() + ".json", body: []byte(lifecycleRecord(dFresh, dAttacker, "mallory"))},
			docEntry(t, fresh),
			docEntry(t, attacker))

		rep := importBytes(t, st, arc, archive.Limits{KeepPublishers: true, ApplyWithdrawals: true})
		if rep.New != 2 || rep.Existing != 2 || rep.Failed != 0 || rep.LifecycleSkipped != 3 || rep.LifecycleRestored != 0 ||
			!strings.Contains(strings.Join(rep.Warnings, "\n"), "--keep-lifecycle") {
			t.Fatalf("untrusted import: %+v", rep)
		}
		for d, want := range map[protocol.Digest]string{dOfficial: "active", dFresh: "active", dOurs: "deprecated"} {
			e := mustGet(t, st, d)
			h, _ := st.History(ctx, d)
			if string(e.Status()) != want || (want == "active" && (len(h) != 0 || e.Lifecycle.Replacement != nil)) {
				t.Fatalf("after an untrusted import %s is %s (%+v, history %+v), want %s", d.Hex(), e.Status(), e.Lifecycle, h, want)
			}
		}

		rep = importBytes(t, st, arc, archive.Limits{KeepLifecycle: true})
		if rep.Existing != 4 || rep.LifecycleRestored != 2 || rep.LifecycleKept != 1 || rep.Failed != 0 {
			t.Fatalf("trusted import: %+v", rep)
		}
		for _, d := range []protocol.Digest{dOfficial, dFresh} {
			e := mustGet(t, st, d)
			h, _ := st.History(ctx, d)
			if !e.Deprecated() || e.Lifecycle.Replacement == nil || *e.Lifecycle.Replacement != dAttacker || len(h) != 1 ||
				!h[0].At.Equal(time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC)) {
				t.Fatalf("after a trusted import %s: %+v, history %+v", d.Hex(), e.Lifecycle, h)
			}
		}
		if e := mustGet(t, st, dOurs); e.Lifecycle.Message != "ours" || e.Lifecycle.Replacement != nil {
			t.Fatalf("a trusted import overwrote a status set here: %+v", e.Lifecycle)
		}
	})
}

// TestHostileLifecycleRecords: a lifecycle no registry records refuses the
// record (invalid_record); the document comes in as a plain import, active.
func TestHostileLifecycleRecords(t *testing.T) {
	future := time.Now().Add(72 * time.Hour).UTC().Format(time.RFC3339)
	event := `{"at":"2025-01-01T00:00:00Z","actor":"acme","status":"active"}`
	many := strings.TrimSuffix(strings.Repeat(event+",", store.MaxHistory+1), ",")
	cases := map[string]func(self string) string{
		"withdrawn status":     func(string) string { return `"status":"withdrawn","statusChangedAt":"2025-01-01T00:00:00Z"` },
		"unknown status":       func(string) string { return `"status":"retired","statusChangedAt":"2025-01-01T00:00:00Z"` },
		"deprecation, no time": func(string) string { return `"status":"deprecated"` },
		"its own replacement": func(self string) string {
			return `"status":"deprecated","statusChangedAt":"2025-01-01T00:00:00Z","replacement":"` + self + `"`
		},
		"replacement when active": func(string) string { return `"status":"active","replacement":"` + strings.Repeat("ab", 20) + `"` },
		"long message": func(string) string {
			return `"status":"deprecated","statusChangedAt":"2025-01-01T00:00:00Z","statusMessage":"` + strings.Repeat("é", store.MaxStatusMessageRunes+1) + `"`
		},
		"future change":       func(string) string { return `"status":"deprecated","statusChangedAt":"` + future + `"` },
		"backdated change":    func(string) string { return `"status":"deprecated","statusChangedAt":"2001-09-09T01:46:40Z"` },
		"too long a history":  func(string) string { return `"history":[` + many + `]` },
		"event without actor": func(string) string { return `"history":[{"at":"2025-01-01T00:00:00Z","status":"active"}]` },
		"event in the future": func(string) string { return `"history":[{"at":"` + future + `","actor":"a","status":"active"}]` },
		"event without time":  func(string) string { return `"history":[{"actor":"a","status":"active"}]` },
	}
	st := openSQLite(t)
	i := 0
	for what, fields := range cases {
		i++
		content := fmt.Sprintf("# Hostile lifecycle %d\n", i)
		d := digest(t, []byte(content))
		rep := importBytes(t, st, hostileArchive(t, content, `"origin":"",`+fields(d.Hex())), archive.Limits{KeepLifecycle: true})
		if rep.Failed != 1 || rep.New != 1 || codes(rep)["documents/"+d.Hex()+".json"] != "invalid_record" {
			t.Fatalf("%s: report %+v", what, rep)
		}
		if e := mustGet(t, st, d); e.Status() != entity.StatusActive || e.Lifecycle.ChangedAt != nil {
			t.Fatalf("%s: stored %v %+v", what, e.Status(), e.Lifecycle)
		}
	}
}

func mustGet(t *testing.T, st store.Store, d protocol.Digest) entity.Entry {
	t.Helper()
	e, err := st.Get(context.Background(), d, false)
	if err != nil {
		t.Fatalf("Get %s: %v", d.Hex(), err)
	}
	return e
}

// TestRestoredReplacementMissingIsReported: a trusted archive restored in
// part (the replacement not among its documents, nor stored here) is
// imported as recorded, and the report says which link leads nowhere.
func TestRestoredReplacementMissingIsReported(t *testing.T) {
	bothEngines(t, func(t *testing.T, st store.Store) {
		content := "# Replaced elsewhere\n"
		d, elsewhere := digest(t, []byte(content)), digest(t, []byte("# Not in this archive\n"))
		arc := buildTar(t, true,
			tarEntry{name: "documents/" + d.Hex() + ".json", body: []byte(lifecycleRecord(d, elsewhere, "acme"))},
			docEntry(t, content))
		rep := importBytes(t, st, arc, archive.Limits{KeepLifecycle: true})
		if rep.LifecycleRestored != 1 || !strings.Contains(strings.Join(rep.Warnings, "\n"), "1 restored deprecations name a replacement this registry does not hold") {
			t.Fatalf("report %+v", rep)
		}
		if e := mustGet(t, st, d); !e.Deprecated() || *e.Lifecycle.Replacement != elsewhere {
			t.Fatalf("stored %+v", e.Lifecycle)
		}
	})
}
