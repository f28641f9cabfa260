package translog

import (
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

func TestRecordFormat(t *testing.T) {
	at := time.Date(2026, 3, 4, 5, 6, 7, 890123456, time.FixedZone("x", 3600))
	ev := store.LogEvent{Event: "publish", Digest: protocol.Digest{0xab, 1}, SHA256: [32]byte{0xcd}, Size: 42, At: at}
	text, err := FormatRecord(ev)
	if err != nil {
		t.Fatal(err)
	}
	want := "agora-registry/1\npublish\nab01000000000000000000000000000000000000\ncd" + strings.Repeat("0", 62) + "\n42\n2026-03-04T04:06:07.890123Z\n"
	if string(text) != want {
		t.Fatalf("record text:\n%q\nwant\n%q", text, want)
	}
	// Hostile reasons stay on one line and are valid tlog record text.
	for _, reason := range []string{"", "a\nb", "\x00\x1b[31m", "\u2028\u2029", "bad \xff utf-8", "\"quoted\" <tag> & more", strings.Repeat("x", 1000)} {
		ev := ev
		ev.Event, ev.Status, ev.Reason = "withdraw", "withdrawn", reason
		text, err := FormatRecord(ev)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tlog.FormatRecord(0, text); err != nil {
			t.Fatalf("reason %q makes invalid record text %q: %v", reason, text, err)
		}
		r, err := agora.ParseLogRecord(text)
		if err != nil || r.Event != "withdraw" || r.Status != "withdrawn" || r.Digest != ev.Digest || r.Size != 42 || !r.Time.Equal(at.Truncate(time.Microsecond)) {
			t.Fatalf("round trip of %q: %+v %v", reason, r, err)
		}
		if r.Reason != strings.ToValidUTF8(reason, "\uFFFD") {
			t.Fatalf("reason %q came back as %q", reason, r.Reason)
		}
	}
	for _, bad := range []store.LogEvent{{Event: "Publish"}, {Event: "with space"}, {Event: "withdraw", Status: ""}, {Event: "withdraw", Status: "a\nb"}} {
		if _, err := FormatRecord(bad); err == nil {
			t.Fatalf("FormatRecord(%+v) accepted", bad)
		}
	}
}

func FuzzParseRecord(f *testing.F) {
	ev := store.LogEvent{Event: "withdraw", Status: "withdrawn", Reason: "r", Size: 1, At: time.Unix(0, 0)}
	text, _ := FormatRecord(ev)
	f.Add(text)
	f.Add([]byte("agora-registry/1\npublish\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if _, err := agora.ParseLogRecord(b); err != nil {
			return
		}
		// Whatever this parser accepts is valid tlog record text.
		if _, err := tlog.FormatRecord(0, b); err != nil {
			t.Fatalf("ParseRecord accepted %q, which tlog refuses: %v", b, err)
		}
	})
}

func FuzzParseCheckpoint(f *testing.F) {
	f.Add("example.org\n5\n" + strings.Repeat("A", 43) + "=\n")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := agora.ParseLogCheckpoint(s)
		if err == nil && (c.N < 0 || c.Origin == "") {
			t.Fatalf("ParseCheckpoint(%q) = %+v", s, c)
		}
	})
}
