package agent

// The byte shapes of agora-protocol 0.2.0 (the Python SDK), written in Go
// from its source: agora/sender/components/transporter.py (requests.post
// with json=), agora/receiver/server.py (Flask jsonify), agora/utils.py
// (compute_hash, encode_as_data_uri).

import (
	"bytes"
	"crypto/sha1"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"testing"
	"unicode/utf16"
)

// pyKV is one key of a Python dict, which keeps insertion order.
type pyKV struct {
	Key   string
	Value any // string, nil, bool, int, []string, pyDict
}

type pyDict []pyKV

// pyDumps is Python's json.dumps(v): separators ", " and ": ", keys in
// insertion order, ensure_ascii (everything outside space..~ escaped as
// lower-case \uXXXX, astral characters as surrogate pairs).
func pyDumps(v any) string {
	var b strings.Builder
	pyEncode(&b, v, ", ", ": ", false)
	return b.String()
}

// flaskJSONify is Flask's jsonify(v) body outside debug mode: compact
// separators, sorted keys, ensure_ascii, and a trailing newline.
func flaskJSONify(v any) string {
	var b strings.Builder
	pyEncode(&b, v, ",", ":", true)
	return b.String() + "\n"
}

func pyEncode(b *strings.Builder, v any, itemSep, keySep string, sortKeys bool) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case int:
		fmt.Fprint(b, x)
	case string:
		pyString(b, x)
	case []string:
		b.WriteByte('[')
		for i, s := range x {
			if i > 0 {
				b.WriteString(itemSep)
			}
			pyString(b, s)
		}
		b.WriteByte(']')
	case pyDict:
		if sortKeys {
			x = append(pyDict(nil), x...)
			sort.Slice(x, func(i, j int) bool { return x[i].Key < x[j].Key })
		}
		b.WriteByte('{')
		for i, kv := range x {
			if i > 0 {
				b.WriteString(itemSep)
			}
			pyString(b, kv.Key)
			b.WriteString(keySep)
			pyEncode(b, kv.Value, itemSep, keySep, sortKeys)
		}
		b.WriteByte('}')
	default:
		panic(fmt.Sprintf("pyEncode: %T", v))
	}
}

func pyString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			if r >= ' ' && r <= '~' {
				b.WriteRune(r)
				continue
			}
			if r > 0xFFFF {
				hi, lo := utf16.EncodeRune(r)
				fmt.Fprintf(b, `\u%04x\u%04x`, hi, lo)
				continue
			}
			fmt.Fprintf(b, `\u%04x`, r)
		}
	}
	b.WriteByte('"')
}

// pyQuote is urllib.parse.quote(text): UTF-8 bytes, with A-Z a-z 0-9 _.-~
// and the default safe '/' kept, everything else %XX (upper case).
func pyQuote(text string) string {
	var b strings.Builder
	for i := 0; i < len(text); i++ {
		c := text[i]
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || strings.IndexByte("_.-~/", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// sdkDataURI is agora.utils.encode_as_data_uri.
func sdkDataURI(doc string) string { return "data:text/plain;charset=utf-8," + pyQuote(doc) }

// sdkHash is agora.utils.compute_hash: Base64 of SHA-1 of the UTF-8 text.
func sdkHash(doc string) string {
	sum := sha1.Sum([]byte(doc))
	return base64.StdEncoding.EncodeToString(sum[:])
}

// sdkQuery is the transporter's raw_query, key order as the SDK builds it;
// multiround is present only when true.
func sdkQuery(hash any, sources any, body string, multiround bool) pyDict {
	q := pyDict{{"protocolHash", hash}, {"protocolSources", sources}, {"body", body}}
	if multiround {
		q = append(q, pyKV{"multiround", true})
	}
	return q
}

// sdkPost is requests.post(url, json=query) as the transporter makes it:
// the SDK reads only HTTP 200 answers, and keeps only "status" and "body"
// (and "conversationId" from a first multi-round answer). It returns the
// whole answer for the test to inspect.
func sdkPost(t *testing.T, url string, query pyDict) map[string]any {
	t.Helper()
	return sdkDo(t, http.MethodPost, url, []byte(pyDumps(query)))
}

// sdkDelete is the transporter's close(): requests.delete, no body.
func sdkDelete(t *testing.T, url string) map[string]any {
	t.Helper()
	return sdkDo(t, http.MethodDelete, url, nil)
}

func sdkDo(t *testing.T, method, url string, payload []byte) map[string]any {
	t.Helper()
	var body io.Reader
	if payload != nil {
		body = bytes.NewReader(payload)
	}
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("User-Agent", "python-requests/2.32.3")
	req.Header.Set("Accept", "*/*")
	req.Header.Set("Accept-Encoding", "gzip, deflate")
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s %s: HTTP %d (the SDK raises ProtocolTransportError): %s", method, url, resp.StatusCode, raw)
	}
	var answer map[string]any
	if err := json.Unmarshal(raw, &answer); err != nil {
		t.Fatalf("%s %s: the SDK's response.json() fails on %q", method, url, raw)
	}
	return answer
}

// sdkSees is what the SDK's transporter returns to its caller:
// {"status": response["status"], "body": response["body"]}, raising a
// KeyError when either is missing.
func sdkSees(t *testing.T, answer map[string]any) (status string, body any) {
	t.Helper()
	s, ok := answer["status"].(string)
	b, hasBody := answer["body"]
	if !ok || !hasBody {
		t.Fatalf("the SDK's transporter raises KeyError on %v", answer)
	}
	return s, b
}

func TestPythonShapesMatchKnownOutput(t *testing.T) {
	// What CPython's json, urllib.parse and hashlib give for the same inputs.
	if got := pyDumps(sdkQuery(nil, []string{}, "°C 😀 \"x\"\n", true)); got != `{"protocolHash": null, "protocolSources": [], "body": "\u00b0C \ud83d\ude00 \"x\"\n", "multiround": true}` {
		t.Fatalf("json.dumps: %s", got)
	}
	if got := flaskJSONify(pyDict{{"status", "error"}, {"message", "Failed to download protocol"}}); got != "{\"message\":\"Failed to download protocol\",\"status\":\"error\"}\n" {
		t.Fatalf("jsonify: %q", got)
	}
	if got := pyQuote("a b/+°~\n"); got != "a%20b/%2B%C2%B0~%0A" {
		t.Fatalf("quote: %s", got)
	}
	if got := sdkHash("abc"); got != "qZk+NkcGgWq6PiVxeFDCbJzQ2J0=" {
		t.Fatalf("compute_hash: %s", got)
	}
}
