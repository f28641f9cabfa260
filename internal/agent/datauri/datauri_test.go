package datauri

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
	raw, err := os.ReadFile("../../protocol/testdata/hash-vectors.json")
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
			got, err := Decode(uri, 1<<20)
			if err != nil {
				t.Fatalf("Decode(%q): %v", uri, err)
			}
			if string(got) != v.Document {
				t.Fatalf("Decode(%q) = %q, want %q", uri, got, v.Document)
			}
		}
	}
	if n < 2 {
		t.Fatalf("expected both data URI forms in the vectors, found %d", n)
	}
}

func TestPlusStaysPlus(t *testing.T) {
	got, err := Decode("data:text/plain;charset=utf-8,a+b%20c", 100)
	if err != nil || string(got) != "a+b c" {
		t.Fatalf("got %q, %v", got, err)
	}
}

func TestRoundTripBase64(t *testing.T) {
	doc := []byte("---\nname: x\n---\n+/= ünïcode")
	got, err := Decode(EncodeBase64(doc), 1000)
	if err != nil || !bytes.Equal(got, doc) {
		t.Fatalf("got %q, %v", got, err)
	}
}

func TestDecodeRefusals(t *testing.T) {
	cases := []struct {
		uri  string
		want error
	}{
		{"http://example.org/", ErrNotDataURI},
		{"data:text/plain;charset=utf-8", ErrMalformed},
		{"data:image/png;base64,AAAA", ErrMediaType},
		{"data:text/plain;charset=latin1,abc", ErrMediaType},
		{"data:text/plain;foo=bar,abc", ErrMalformed},
		{"data:text/plain;base64;charset=utf-8,abc", ErrMalformed},
		{"data:text/plain;charset=utf-8,%zz", ErrMalformed},
		{"data:text/plain;charset=utf-8;base64,!!!!", ErrMalformed},
		{"data:text/plain;charset=utf-8," + strings.Repeat("a", 11), ErrTooLarge},
		{"data:text/plain;charset=utf-8;base64," + strings.Repeat("QUFB", 4), ErrTooLarge},
	}
	for _, c := range cases {
		_, err := Decode(c.uri, 10)
		if !errors.Is(err, c.want) {
			t.Errorf("Decode(%q) = %v, want %v", c.uri, err, c.want)
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
		out, err := Decode(uri, max)
		if err == nil && len(out) > max {
			t.Fatalf("decoded %d bytes over the %d limit", len(out), max)
		}
	})
}
