package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestSendWithoutAUsableProtocolSaysWhatToGive: no candidate, or only
// candidates the target refuses, is one line naming the way out, not the
// chooser's error chain.
func TestSendWithoutAUsableProtocolSaysWhatToGive(t *testing.T) {
	const refused = "70f75ff222c24b54c4f30504c8779a98257ed8f2"
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/.wellknown" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"_unsupported":["` + refused + `"]}`))
	}))
	t.Cleanup(target.Close)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "agent send: no protocol to send with: give --protocol FILE|HASH"},
		{[]string{"--protocol", refused}, "agent send: the target marks " + refused + " unsupported: give --protocol FILE|HASH"},
	} {
		args := append([]string{"send", "--to", target.URL, "--body", "{}"}, tc.args...)
		code, _, errOut := runAgent(nil, args...)
		if code != 1 || !strings.HasPrefix(errOut, tc.want) || strings.Count(errOut, "\n") > 1 || strings.Contains(errOut, "every candidate") {
			t.Errorf("agent %v: exit %d, stderr:\n%s\nwant one line starting %q", args, code, errOut, tc.want)
		}
	}
}
