package agent

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestAgentBadInputTable sends hostile transactions to a running agent.
// The agent speaks Agora: every answer is HTTP 200 with status "rejected"
// (or "failure") and a stable code (the SDK reads the status from the body), never a
// crash, a hang or a fetch it should not make.
func TestAgentBadInputTable(t *testing.T) {
	doc, d := weatherDoc(t)
	src := newCountingSource(t, doc)
	cfg := weatherConfig(d)
	cfg.Limits = Limits{MaxRequestBytes: 64 << 10, MaxSources: 4}
	_, bob := startBob(t, cfg)
	manySources := make([]string, 10_000)
	for i := range manySources {
		manySources[i] = fmt.Sprintf("%s/doc%d", src.URL, i)
	}
	deep := strings.Repeat("[", 10_000) + strings.Repeat("]", 10_000)
	rows := []struct {
		name, payload, code string
	}{
		{"deep nesting bare", deep, "malformed_json"},
		{"deep nesting in body", `{"protocolHash": null, "body": ` + deep + `}`, ""},
		{"deep nesting in sources", `{"protocolHash": "` + d.Hex() + `", "protocolSources": ` + deep + `, "body": "x"}`, ""},
		{"invalid UTF-8", "{\"protocolHash\": null, \"body\": \"\xff\xfe\"}", ""},
		{"NUL in body", `{"protocolHash": null, "body": "a\u0000b"}`, ""},
		{"NUL in hash", `{"protocolHash": "\u0000", "body": "x"}`, "malformed_hash"},
		{"hash too long", `{"protocolHash": "` + strings.Repeat("a", 10_000) + `", "body": "x"}`, "malformed_hash"},
		{"huge JSON", `{"protocolHash": null, "body": "` + strings.Repeat("x", 100<<10) + `"}`, "request_too_large"},
		{"10,000 sources, none allowed", string(tx(strings.Repeat("ab", 20), manySources, "{}")), ""},
		{"file source", string(tx(strings.Repeat("ab", 20), []string{"file:///etc/passwd"}, "{}")), ""},
		{"metadata source", string(tx(strings.Repeat("ab", 20), []string{"http://169.254.169.254/latest/meta-data/"}, "{}")), ""},
		{"gopher source", string(tx(strings.Repeat("ab", 20), []string{"gopher://127.0.0.1:70/_x"}, "{}")), ""},
		{"decimal IP source", string(tx(strings.Repeat("ab", 20), []string{"http://2130706433/"}, "{}")), ""},
		{"source of wrong type", `{"protocolHash": "` + d.Hex() + `", "protocolSources": {"a": 1}, "body": "x"}`, "wrong_type"},
		{"empty", ``, "malformed_json"},
		{"number", `5`, "malformed_json"},
	}
	codes := map[string]int{}
	for _, r := range rows {
		a := callRaw(t, bob+"/", "application/json", r.payload)
		// Invalid UTF-8 and NUL decode (as U+FFFD and U+0000) into a
		// hash-less request, which this LLM-less agent refuses as a failure.
		if a.Status == StatusSuccess || a.Code == "" || a.Code == "internal" {
			t.Errorf("%s: %+v, want a refusal with a stable code", r.name, a)
			continue
		}
		if r.code != "" && a.Code != r.code {
			t.Errorf("%s: code %q, want %q", r.name, a.Code, r.code)
		}
		codes[a.Code]++
	}
	// Wrong content type and %00 / junk in conversation paths.
	for _, p := range []struct{ method, path, ctype, body string }{
		{"POST", "/", "text/xml", `<x/>`},
		{"POST", "/conversations/%00", "application/json", `{"body": "x"}`},
		{"POST", "/conversations/" + strings.Repeat("z", 5000), "application/json", `{"body": "x"}`},
		{"DELETE", "/conversations/..%2F..%2Fetc", "", ``},
	} {
		a := callRawMethod(t, p.method, bob+p.path, p.ctype, p.body)
		if a.Status != StatusRejected || a.Code == "" {
			t.Errorf("%s %s: %+v, want rejected", p.method, p.path, a)
		}
		codes[a.Code]++
	}
	if src.hits.Load() != 0 {
		t.Fatalf("hostile transactions made %d fetches from a source that is not allow-listed", src.hits.Load())
	}
	t.Logf("agent: %d hostile transactions rejected; codes %v", len(rows)+4, codes)
}

func callRaw(t *testing.T, url, ctype, payload string) Answer {
	return callRawMethod(t, "POST", url, ctype, payload)
}

func callRawMethod(t *testing.T, method, url, ctype, payload string) Answer {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(payload))
	if err != nil {
		t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var a Answer
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
		t.Fatalf("%s %s: HTTP %d, answer is not JSON: %v", method, url, resp.StatusCode, err)
	}
	return a
}
