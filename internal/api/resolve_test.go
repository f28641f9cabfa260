package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"
)

// A chunked body (no Content-Length) whose strings use JSON escapes is
// read whole and answered in the order asked.
func TestResolveChunkedEscapedBody(t *testing.T) {
	ts := newTwoServers(t, Config{})
	live, err := ts.hotSvc.Publish(context.Background(), []byte(hotDoc), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	hexLive := live.Entry.Digest.Hex()
	body := fmt.Sprintf(`{"hashes":["\u%04x%s","n\u006fpe"]}`, hexLive[0], hexLive[1:])
	res, err := http.Post(ts.hotTS.URL+"/api/v1/resolve", "application/json", iotest.HalfReader(strings.NewReader(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out resolveAnswer
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil || res.StatusCode != 200 {
		t.Fatalf("%d: %v", res.StatusCode, err)
	}
	if len(out.Results) != 2 || !out.Results[0].Found || out.Results[0].Hash != hexLive ||
		out.Results[1].Hash != "nope" || out.Results[1].Error != "malformed_hash" {
		t.Errorf("answer %+v", out.Results)
	}
}

// Bad bodies get a 400 with a stable code.
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
