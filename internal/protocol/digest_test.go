package protocol

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/apperr"
)

func TestParseDigestAcceptsEverySpellingOfEveryVector(t *testing.T) {
	for _, v := range loadHashVectors(t) {
		want := MustParseDigest(v.Hex)
		urlSafe := strings.NewReplacer("+", "-", "/", "_").Replace(v.Base64)
		spellings := map[string]string{
			"hex":                       v.Hex,
			"upper-case hex":            strings.ToUpper(v.Hex),
			"standard Base64":           v.Base64,
			"standard Base64 unpadded":  strings.TrimSuffix(v.Base64, "="),
			"URL-safe Base64":           urlSafe,
			"URL-safe Base64 unpadded":  strings.TrimSuffix(urlSafe, "="),
			"'+' decoded to ' '":        strings.ReplaceAll(v.Base64, "+", " "),
			"'+' to ' ', unpadded":      strings.TrimSuffix(strings.ReplaceAll(v.Base64, "+", " "), "="),
			"mixed-case hex (as typed)": strings.ToUpper(v.Hex[:20]) + v.Hex[20:],
		}
		for name, s := range spellings {
			got, err := ParseDigest(s)
			if err != nil {
				t.Errorf("%q: ParseDigest(%q) (%s): %v", v.Document, s, name, err)
				continue
			}
			if got != want {
				t.Errorf("%q: ParseDigest(%q) (%s) = %s, want %s", v.Document, s, name, got, want)
			}
		}
		if want.Hex() != v.Hex || want.Base64() != v.Base64 {
			t.Errorf("%q: spelled %s / %s, want %s / %s", v.Document, want.Hex(), want.Base64(), v.Hex, v.Base64)
		}
	}
}

// The vectors must exercise the alphabet differences, or the test above
// proves less than it claims.
func TestHashVectorsCoverBase64AlphabetDifferences(t *testing.T) {
	var plus, slash bool
	for _, v := range loadHashVectors(t) {
		plus = plus || strings.Contains(v.Base64, "+")
		slash = slash || strings.Contains(v.Base64, "/")
	}
	if !plus || !slash {
		t.Fatalf("no vector's Base64 has both '+' and '/' somewhere (plus=%v slash=%v)", plus, slash)
	}
}

func TestParseDigestRefusesMalformedSpellings(t *testing.T) {
	const abcHex = "a9993e364706816aba3e25717850c26c9cd0d89d"
	const abcB64 = "qZk+NkcGgWq6PiVxeFDCbJzQ2J0="
	cases := []struct {
		name, in, message string
	}{
		{"empty", "", "missing hash"},
		{"hex one short", abcHex[:39], "39 characters long"},
		{"hex one long", abcHex + "0", "41 characters long"},
		{"40 characters, not hex", "g" + abcHex[1:], "not hexadecimal"},
		{"hex with a space", " " + abcHex[1:], "not hexadecimal"},
		{"hex with 0x prefix", "0x" + abcHex, "42 characters long"},
		{"28 characters, not Base64", "qZk*NkcGgWq6PiVxeFDCbJzQ2J0=", "neither hexadecimal nor Base64"},
		{"28 characters without padding", "qZk+NkcGgWq6PiVxeFDCbJzQ2J0A", "not ending in '='"},
		{"28 characters, double padding", "qZk+NkcGgWq6PiVxeFDCbJzQ2J==", "neither hexadecimal nor Base64"},
		{"non-zero trailing bits", "qZk+NkcGgWq6PiVxeFDCbJzQ2J1=", "not canonical"},
		{"non-zero trailing bits, unpadded", "qZk+NkcGgWq6PiVxeFDCbJzQ2J3", "not canonical"},
		{"mixed alphabets", abcB64[:10] + "_" + abcB64[11:], "mixes"},
		{"newline inside", "qZk+NkcGgWq6PiV\nFDCbJzQ2J0=", "neither hexadecimal nor Base64"},
		{"28 bytes of non-ASCII", strings.Repeat("é", 14), "neither hexadecimal nor Base64"},
		{"percent-escaped", "qZk%2BNkcGgWq6PiVxeFDCbJzQ2J0%3D", "32 characters long"},
		{"32-byte SHA-256 in hex", strings.Repeat("ab", 32), "64 characters long"},
		{"40 bytes of non-ASCII", strings.Repeat("é", 20), "not hexadecimal"},
		{"non-ASCII, odd length", strings.Repeat("é", 7), "7 characters long"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := ParseDigest(c.in)
			if !errors.Is(err, ErrMalformedDigest) {
				t.Fatalf("ParseDigest(%q) = %s, %v; want ErrMalformedDigest", c.in, d, err)
			}
			if e := apperr.As(err); e == nil || e.Kind != apperr.Invalid || e.Code != "malformed_hash" {
				t.Fatalf("error %#v is not Invalid/malformed_hash", err)
			}
			if !strings.Contains(err.Error(), c.message) {
				t.Fatalf("message %q does not say %q", err.Error(), c.message)
			}
		})
	}
}

func TestDigestTextAndJSONRoundTrip(t *testing.T) {
	d := MustParseDigest("qZk+NkcGgWq6PiVxeFDCbJzQ2J0=")
	out, err := json.Marshal(struct{ D Digest }{d})
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != `{"D":"a9993e364706816aba3e25717850c26c9cd0d89d"}` {
		t.Fatalf("JSON = %s", out)
	}
	var back struct{ D Digest }
	if err := json.Unmarshal([]byte(`{"D":"qZk-NkcGgWq6PiVxeFDCbJzQ2J0"}`), &back); err != nil {
		t.Fatal(err)
	}
	if back.D != d {
		t.Fatalf("unmarshalled %s, want %s", back.D, d)
	}
	err = json.Unmarshal([]byte(`{"D":"nope"}`), &back)
	if !errors.Is(err, ErrMalformedDigest) {
		t.Fatalf("unmarshal of a bad digest: %v", err)
	}
	if d.String() != d.Hex() || d.IsZero() || !(Digest{}).IsZero() {
		t.Fatal("String/IsZero disagree with Hex")
	}
}

func TestMustParseDigestPanicsOnMalformedInput(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	MustParseDigest("not a hash")
}
