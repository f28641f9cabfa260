package api

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

const (
	hexA = "a9993e364706816aba3e25717850c26c9cd0d89d"
	b64A = "qZk+NkcGgWq6PiVxeFDCbJzNiJ0="
)

// The fast path must take the usual bodies, or it saves nothing.
func TestScanHashListTakesTheUsualShapes(t *testing.T) {
	for _, c := range []struct {
		body string
		want []string
	}{
		{`{"hashes":[]}`, []string{}},
		{`{"hashes":["` + hexA + `"]}`, []string{hexA}},
		{`{"hashes":["` + hexA + `","` + b64A + `","x",""]}`, []string{hexA, b64A, "x", ""}},
		{" \r\n\t{ \"hashes\" :\n [\n  \"" + hexA + "\" ,\n  \"" + b64A + "\"\n ]\n}\n ", []string{hexA, b64A}},
		{`{"hashes":["<&>'/ {}[],:"]}`, []string{`<&>'/ {}[],:`}},
	} {
		got, ok := scanHashList(c.body)
		if !ok || !slices.Equal(got, c.want) || got == nil {
			t.Errorf("%q: got %q, %v; want %q", c.body, got, ok, c.want)
		}
	}
}

// Anything the fast path does not fully understand goes to encoding/json.
func TestScanHashListLeavesTheRestToEncodingJSON(t *testing.T) {
	for _, body := range []string{
		``, ` `, `{}`, `[]`, `null`, `{"hashes":null}`, `{"hashes":"abc"}`, `{"hashes":[1,2]}`,
		`{"Hashes":["a"]}`, `{"hashes":["a"],"hashes":["b"]}`, `{"hashes":["a"],"other":1}`,
		`{"hashes":["a",]}`, `{"hashes":[,"a"]}`, `{"hashes":["a""b"]}`, `{"hashes":["a"]`, `{"hashes":["a"]}}`,
		`{"hashes":["a"]} x`, `{"hashes":["a"]}{}`, `{"hashes":[["a"]]}`, `{"hashes":["a\"b"]}`,
		`{"hashes":["\u0061"]}`, "{\"hashes\":[\"\xff\"]}", `{"hashes":["héllo"]}`, "{\"hashes\":[\"a\tb\"]}",
		"\ufeff{\"hashes\":[]}", `{"hashes":["a"`, `{"hashes`, "{\"hashes\":[]}\x00",
	} {
		if got, ok := scanHashList(body); ok {
			t.Errorf("%q was taken by the fast path as %q", body, got)
		}
	}
}

// Whatever the fast path takes, encoding/json reads the same way.
func FuzzScanHashListAgreesWithEncodingJSON(f *testing.F) {
	for _, s := range []string{`{"hashes":[]}`, `{"hashes":["` + hexA + `"," x "]}`, ` {"hashes" : [ "a" , "b" ] } `,
		`{"hashes":["a"],"hashes":[]}`, `{"hashes":["\u0061"]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		got, ok := scanHashList(body)
		if !ok {
			return
		}
		var r resolveJSON
		if err := unmarshalStrict([]byte(body), &r); err != nil {
			t.Fatalf("fast path took %q, encoding/json refuses it: %v", body, err)
		}
		if !slices.Equal(got, r.Hashes) || r.Hashes == nil {
			t.Fatalf("%q: fast path %q, encoding/json %q", body, got, r.Hashes)
		}
	})
}

func TestReadBodyStringReadsEverythingInPieces(t *testing.T) {
	want := strings.Repeat("0123456789", 10_000)
	for _, size := range []int64{-1, 0, 10, int64(len(want)), 1 << 30} {
		got, err := readBodyString(iotest.OneByteReader(strings.NewReader(want[:1000])), size, make([]byte, 0, 7))
		if err != nil || got != want[:1000] {
			t.Fatalf("size hint %d: %v, %d bytes", size, err, len(got))
		}
		got, err = readBodyString(iotest.HalfReader(strings.NewReader(want)), size, make([]byte, 0, 4096))
		if err != nil || got != want {
			t.Fatalf("size hint %d: %v, %d bytes", size, err, len(got))
		}
	}
	if _, err := readBodyString(iotest.TimeoutReader(strings.NewReader(want)), 0, make([]byte, 0, 16)); err == nil {
		t.Fatal("a read error was lost")
	}
}

// A body on the fast path and the same request spelled with escapes (which
// encoding/json reads) get the same answer, byte for byte.
func TestResolveFastAndEscapedBodiesAnswerAlike(t *testing.T) {
	ts := newTwoServers(t, Config{})
	live, err := ts.hotSvc.Publish(context.Background(), []byte(hotDoc), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	hexLive, b64Live := live.Entry.Digest.Hex(), live.Entry.Digest.Base64()
	plain := `{"hashes":["` + hexLive + `","` + b64Live + `","` + hexA + `","nope"]}`
	escaped := fmt.Sprintf(`{"hashes":["\u%04x%s","%s","%s","n\u006fpe"]}`, hexLive[0], hexLive[1:], b64Live, hexA)
	if _, ok := scanHashList(escaped); ok {
		t.Fatal("the escaped body should not take the fast path")
	}
	if _, ok := scanHashList(plain); !ok {
		t.Fatal("the plain body should take the fast path")
	}
	answer := func(body string, chunked bool) []byte {
		var r io.Reader = strings.NewReader(body)
		if chunked {
			r = iotest.HalfReader(r) // no Content-Length
		}
		res, err := http.Post(ts.hotTS.URL+"/api/v1/resolve", "application/json", r)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != 200 {
			t.Fatalf("%d: %s", res.StatusCode, b)
		}
		return b
	}
	want := answer(escaped, false)
	for _, chunked := range []bool{false, true} {
		if got := answer(plain, chunked); !bytes.Equal(got, want) {
			t.Errorf("chunked %v:\nfast    %s\nescaped %s", chunked, got, want)
		}
	}
	if !bytes.Contains(want, []byte(`"hash":"nope"`)) || !bytes.Contains(want, []byte(`"found":true`)) {
		t.Errorf("unexpected answer %s", want)
	}
}

// Bad bodies keep encoding/json's errors.
func TestResolveBadBodiesKeepTheirErrors(t *testing.T) {
	ts := newTestServer(t, nil)
	for body, code := range map[string]string{
		``:                         "invalid_json",
		`{"hashes":"abc"}`:         "invalid_json",
		`{"hashes":["a"],"x":1}`:   "invalid_json",
		`{"hashes":["a",]}`:        "invalid_json",
		`{"hashes":["a"]} trailer`: "invalid_json",
		`{"hashes":[` + strings.Repeat(`"a",`, 1000) + `"a"]}`: "too_many_hashes",
	} {
		res, err := http.Post(ts.URL+"/api/v1/resolve", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 400 || !bytes.Contains(b, []byte(`"`+code+`"`)) {
			t.Errorf("%.40q: %d %s, want 400 %s", body, res.StatusCode, b, code)
		}
	}
}

// A body without a declared length (chunked) is still cut at the body
// limit while it is read, and answered 413.
func TestResolveChunkedBodyOverTheLimit(t *testing.T) {
	ts := newTestServer(t, nil)
	body := io.MultiReader(strings.NewReader(`{"hashes":["`), strings.NewReader(strings.Repeat("a", DefaultMaxBodyBytes)), strings.NewReader(`"]}`))
	req, err := http.NewRequest(http.MethodPost, ts.URL+"/api/v1/resolve", body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if req.ContentLength != 0 && req.ContentLength != -1 {
		t.Fatalf("the request declared a length (%d): the test needs a chunked body", req.ContentLength)
	}
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("status %d, want 413", resp.StatusCode)
	}
}
