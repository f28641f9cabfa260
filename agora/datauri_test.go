package agora

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
)

type vector struct {
	Document      string `json:"document"`
	Hex           string `json:"hex"`
	DataURI       string `json:"data_uri"`
	DataURIBase64 string `json:"data_uri_base64"`
}

func loadVectors(t testing.TB) []vector {
	raw, err := os.ReadFile("../internal/protocol/testdata/hash-vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct{ Vectors []vector }
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	return file.Vectors
}

func TestDecodeVectors(t *testing.T) {
	n := 0
	for _, v := range loadVectors(t) {
		for _, uri := range []string{v.DataURI, v.DataURIBase64} {
			if uri == "" {
				continue
			}
			n++
			got, err := decodeDataURI(uri, 1<<20)
			if err != nil {
				t.Fatalf("decodeDataURI(%q): %v", uri, err)
			}
			if string(got) != v.Document {
				t.Fatalf("decodeDataURI(%q) = %q, want %q", uri, got, v.Document)
			}
		}
	}
	if n < 2 {
		t.Fatalf("expected both data URI forms in the vectors, found %d", n)
	}
}

func TestPlusStaysPlus(t *testing.T) {
	got, err := decodeDataURI("data:text/plain;charset=utf-8,a+b%20c", 100)
	if err != nil || string(got) != "a+b c" {
		t.Fatalf("got %q, %v", got, err)
	}
}

func TestRoundTripBase64(t *testing.T) {
	doc := []byte("---\nname: x\n---\n+/= ünïcode")
	got, err := decodeDataURI(DataURI(doc), 1000)
	if err != nil || !bytes.Equal(got, doc) {
		t.Fatalf("got %q, %v", got, err)
	}
}

func TestDecodeRefusals(t *testing.T) {
	cases := []struct {
		uri  string
		want error
	}{
		{"http://example.org/", errNotDataURI},
		{"data:text/plain;charset=utf-8", errMalformedDataURI},
		{"data:image/png;base64,AAAA", errDataURIType},
		{"data:text/plain;charset=latin1,abc", errDataURIType},
		{"data:text/plain;foo=bar,abc", errMalformedDataURI},
		{"data:text/plain;base64;charset=utf-8,abc", errMalformedDataURI},
		{"data:text/plain;charset=utf-8,%zz", errMalformedDataURI},
		{"data:text/plain;charset=utf-8;base64,!!!!", errMalformedDataURI},
		{"data:text/plain;charset=utf-8," + strings.Repeat("a", 11), errDataURITooLarge},
		{"data:text/plain;charset=utf-8;base64," + strings.Repeat("QUFB", 4), errDataURITooLarge},
	}
	for _, c := range cases {
		_, err := decodeDataURI(c.uri, 10)
		if !errors.Is(err, c.want) {
			t.Errorf("decodeDataURI(%q) = %v, want %v", c.uri, err, c.want)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, v := range loadVectors(f) {
		if v.DataURI != "" {
			f.Add(v.DataURI)
			f.Add(v.DataURIBase64)
		}
	}
	f.Add("data:,")
	f.Add("data:;base64,====")
	const max = 64
	f.Fuzz(func(t *testing.T, uri string) {
		out, err := decodeDataURI(uri, max)
		if err == nil && len(out) > max {
			t.Fatalf("decoded %d bytes over the %d limit", len(out), max)
		}
	})
}
