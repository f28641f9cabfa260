package api

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestOpenPublishingAdmitsNoTokenlessWithdraw: open publishing lets anyone
// publish, never withdraw (docs/SECURITY.md).
func TestOpenPublishingAdmitsNoTokenlessWithdraw(t *testing.T) {
	s, ts, _ := newGateServer(t, Config{})
	s.auth.openPublish = true
	c := clientFrom("127.0.0.1")
	res, body := send(t, c, "POST", ts.URL+"/api/v1/protocols", "text/markdown", "# Keep me\n")
	if res.StatusCode != 201 {
		t.Fatalf("open publish: %d %s", res.StatusCode, body)
	}
	loc := res.Header.Get("Location")
	res, body = send(t, c, "DELETE", ts.URL+loc, "application/json", `{"reason":"tokenless"}`)
	if res.StatusCode != 401 || !strings.Contains(body, `"code":"missing_token"`) {
		t.Errorf("tokenless withdraw under open publishing: %d %s, want 401 missing_token", res.StatusCode, body)
	}
	if res, body := send(t, c, "GET", ts.URL+loc, "", ""); res.StatusCode != 200 {
		t.Errorf("the document after the refused withdraw: %d %s", res.StatusCode, body)
	}
}

// TestMetricsMethodLabelIsBounded: 40 invented methods make no new
// time series: they count as OTHER.
func TestMetricsMethodLabelIsBounded(t *testing.T) {
	_, ts, _ := newGateServer(t, Config{})
	c := clientFrom("127.0.0.1")
	for i := range 40 {
		req, _ := http.NewRequest(fmt.Sprintf("INVENTED%d", i), ts.URL+"/api/v1/stats", nil)
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	_, metrics := send(t, c, "GET", ts.URL+"/metrics", "", "")
	if strings.Contains(metrics, `method="INVENTED`) || !strings.Contains(metrics, `method="OTHER"`) {
		t.Errorf("method label not bounded:\n%s", grepLines(metrics, "registry_http_requests_total"))
	}
}

// TestRequestIDIsCapped: a well-formed incoming id of up to 64 characters is
// kept; a longer or odd one is replaced by the server's own.
func TestRequestIDIsCapped(t *testing.T) {
	_, ts, _ := newGateServer(t, Config{})
	c := clientFrom("127.0.0.1")
	for _, tc := range []struct {
		id   string
		kept bool
	}{
		{strings.Repeat("a", 64), true},
		{"trace-1.2_3", true},
		{strings.Repeat("a", 65), false},
		{strings.Repeat("b", 10_000), false},
		{"with space", false},
		{"quote\"", false},
		{"ünïcode", false},
	} {
		req, _ := http.NewRequest("GET", ts.URL+"/api/v1/stats", nil)
		req.Header.Set(HeaderRequestID, tc.id)
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		got := res.Header.Get(HeaderRequestID)
		if kept := got == tc.id; kept != tc.kept || !validRequestID(got) {
			t.Errorf("incoming id %.20q (%d chars): answered %.20q (%d chars), kept %v, want %v", tc.id, len(tc.id), got, len(got), kept, tc.kept)
		}
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
