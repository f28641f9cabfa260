package demo

import (
	"crypto/sha1"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/agora-registry/registry/internal/testing/security"
)

// demoHeaders are what python-requests sends beside a body.
var demoHeaders = map[string]string{"User-Agent": "python-requests/2.32.3", "Accept": "*/*"}

type response struct {
	Status int
	Header http.Header
	Body   []byte
}

// call sends a request the way python-requests does; header adds pairs.
func call(t *testing.T, method, target string, body string, header ...string) response {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, target, r)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range demoHeaders {
		req.Header.Set(k, v)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json") // requests' json=
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", method, target, err)
	}
	return response{res.StatusCode, res.Header, b}
}

// pythonJSON is json.dumps with its defaults, which requests' json= uses:
// ", " and ": " separators, and every non-ASCII character escaped
// (ensure_ascii), astral ones as a surrogate pair. Keys keep the order
// given, as a Python dict does.
func pythonJSON(kv ...string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i < len(kv); i += 2 {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(pythonString(kv[i]))
		b.WriteString(": ")
		b.WriteString(pythonString(kv[i+1]))
	}
	b.WriteByte('}')
	return b.String()
}

func pythonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r > 0x7e:
			if r > 0xffff {
				hi, lo := utf16.EncodeRune(r)
				fmt.Fprintf(&b, `\u%04x\u%04x`, hi, lo)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// submit is submit_protocol_to_public_db: POST the DB's root, and the
// source URL it builds with urlencode.
func submit(t *testing.T, s *security.Server, name, description, protocol string) (response, string, string) {
	t.Helper()
	res := call(t, "POST", s.URL, pythonJSON("name", name, "description", description, "protocol", protocol))
	id := computeHash(t, protocol)
	return res, id, s.URL + "/protocol?" + url.Values{"id": {id}}.Encode()
}

// demoList is GET of the DB's root, read as decide_protocol reads it.
type demoList struct {
	Status    string `json:"status"`
	Protocols []struct {
		ID          string `json:"id"`
		Name        string `json:"name"`
		Description string `json:"description"`
	} `json:"protocols"`
}

func getList(t *testing.T, target string) (demoList, response) {
	t.Helper()
	res := call(t, "GET", target, "")
	var l demoList
	if res.Status != 200 || json.Unmarshal(res.Body, &l) != nil || l.Status != "success" {
		t.Fatalf("GET %s: %d %.300s", target, res.Status, res.Body)
	}
	return l, res
}

// demoMetadata is GET /metadata's answer: the demo reads status and
// metadata's name and description; publisher is the registry's addition.
type demoMetadata struct {
	Status   string `json:"status"`
	Metadata struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	} `json:"metadata"`
	Publisher string `json:"publisher"`
}

func getMetadata(t *testing.T, target string) demoMetadata {
	t.Helper()
	res := call(t, "GET", target, "")
	var m demoMetadata
	if res.Status != 200 || json.Unmarshal(res.Body, &m) != nil || m.Status != "success" {
		t.Fatalf("GET %s: %d %.300s", target, res.Status, res.Body)
	}
	return m
}

// computeHash is the demo's utils.compute_hash.
func computeHash(t *testing.T, s string) string {
	t.Helper()
	sum := sha1.Sum([]byte(s))
	return base64.StdEncoding.EncodeToString(sum[:])
}

// eachEngine runs a test against a registry on each store engine, set up
// as a demo network runs it: publishing open (the demo sends no token).
func eachEngine(t *testing.T, o security.Options, test func(t *testing.T, s *security.Server)) {
	for _, engine := range security.Engines {
		t.Run(engine, func(t *testing.T) {
			o := o
			o.Engine, o.OpenPublish = engine, true
			test(t, security.Start(t, o))
		})
	}
}
