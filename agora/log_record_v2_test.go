package agora

import (
	"strings"
	"testing"
	"time"
)

func TestLogRecordAttestations(t *testing.T) {
	at := time.Date(2026, 12, 6, 4, 0, 0, 0, time.UTC)
	r := LogRecord{Event: LogEventDeprecate, Digest: Digest{1}, SHA256: [32]byte{2}, Size: 3, Time: at,
		Status: "deprecated", Reason: "use v2",
		Attested: LogAttestation{Publisher: "acme", PublisherDisplayName: "Acme <Inc>", PublisherDomain: "acme.example", ReplacedBy: Digest{9}.Hex()}}
	text, err := FormatLogRecord(r)
	if err != nil {
		t.Fatal(err)
	}
	want := "agora-registry/2\ndeprecate\n" + Digest{1}.Hex() + "\n02" + strings.Repeat("0", 62) + "\n3\n2026-12-06T04:00:00Z\n" +
		`{"publisher":"acme","publisherDisplayName":"Acme <Inc>","publisherDomain":"acme.example","replacedBy":"` + Digest{9}.Hex() + "\"}\n" +
		"deprecated\n\"use v2\"\n"
	if string(text) != want {
		t.Fatalf("text\n%q\nwant\n%q", text, want)
	}
	back, err := ParseLogRecord(text)
	if err != nil || back.Attested != r.Attested || back.Reason != r.Reason || back.Status != r.Status {
		t.Fatalf("round trip: %+v %v", back, err)
	}
	// A publish with only a publisher is /2; without attestations it stays /1.
	pub := LogRecord{Event: LogEventPublish, Digest: Digest{1}, Time: at, Attested: LogAttestation{Publisher: "acme"}}
	if text, _ := FormatLogRecord(pub); !strings.HasPrefix(string(text), LogRecordVersion2+"\n") {
		t.Fatalf("publish with a publisher: %q", text)
	}
	pub.Attested = LogAttestation{}
	if text, _ := FormatLogRecord(pub); !strings.HasPrefix(string(text), LogRecordVersion+"\n") {
		t.Fatalf("publish without attestations: %q", text)
	}
}

// Every spelling but the canonical one is refused, so a record's
// attestations cannot be read two ways.
func TestLogRecordRefusesOtherSpellings(t *testing.T) {
	at := time.Date(2026, 12, 6, 4, 0, 0, 0, time.UTC)
	good, err := FormatLogRecord(LogRecord{Event: LogEventPublish, Digest: Digest{1}, Time: at, Attested: LogAttestation{Publisher: "acme"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseLogRecord(good); err != nil {
		t.Fatalf("canonical record refused: %v", err)
	}
	line := `{"publisher":"acme"}`
	for name, bad := range map[string]string{
		"unknown key":       `{"publisher":"acme","admin":true}`,
		"empty object":      `{}`,
		"spaces":            `{"publisher": "acme"}`,
		"escaped":           `{"publisher":"\u0061cme"}`,
		"keys out of order": `{"publisherDomain":"x.example","publisher":"acme"}`,
		"not an object":     `"acme"`,
		"trailing value":    `{"publisher":"acme"} {}`,
		"bad replacement":   `{"publisher":"acme","replacedBy":"ABC"}`,
	} {
		text := strings.Replace(string(good), line, bad, 1)
		if _, err := ParseLogRecord([]byte(text)); err == nil {
			t.Errorf("%s: %q accepted", name, text)
		}
	}
	// A /1 record with an attestation line, a /2 record without one.
	v1 := strings.Replace(string(good), LogRecordVersion2, LogRecordVersion, 1)
	if _, err := ParseLogRecord([]byte(v1)); err == nil {
		t.Errorf("/1 record with an attestation line accepted")
	}
	v2 := strings.Replace(string(good), line+"\n", "", 1)
	if _, err := ParseLogRecord([]byte(v2)); err == nil {
		t.Errorf("/2 record without an attestation line accepted")
	}
}
