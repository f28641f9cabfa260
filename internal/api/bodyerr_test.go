package api

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/api/problem"
)

// TestBrokenBodiesAreTheClientsFault: over a raw TCP socket, a malformed
// chunked body answers 400 malformed_body and a client that stops sending
// mid-body gets 499 (logged at INFO); none is a 5xx, and no ERROR line is
// logged whatever the client does.
func TestBrokenBodiesAreTheClientsFault(t *testing.T) {
	s, ts, logs := newGateServer(t, Config{})
	s.auth.openPublish = true // so publishes read their bodies
	head := func(path, framing string) string {
		return "POST " + path + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" + framing + "\r\n"
	}
	for _, tc := range []struct {
		name, request string
		hangUp        bool // half-close after sending: the body ends early
		status        int
		code          string
	}{
		{"bad chunk size", head("/api/v1/resolve", "Transfer-Encoding: chunked\r\n") + "zz\r\n{}\r\n0\r\n\r\n", false, 400, "malformed_body"},
		{"chunk without CRLF", head("/api/v1/resolve", "Transfer-Encoding: chunked\r\n") + "2\r\n{}XX0\r\n\r\n", false, 400, "malformed_body"},
		{"short fixed body", head("/api/v1/resolve", "Content-Length: 100\r\n") + `{"hashes":[`, true, 499, "client_closed_request"},
		{"chunked cut mid-chunk", head("/api/v1/resolve", "Transfer-Encoding: chunked\r\n") + "40\r\n{\"hashes\"", true, 499, "client_closed_request"},
		{"demo publish cut", head("/", "Content-Length: 100\r\n") + `{"protocol":`, true, 499, "client_closed_request"},
		{"publish bad chunk", head("/api/v1/protocols", "Transfer-Encoding: chunked\r\n") + "-1\r\n", false, 400, "malformed_body"},
		{"publish cut", head("/api/v1/protocols", "Content-Length: 100\r\n") + `{"content":`, true, 499, "client_closed_request"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, br := rawConn(t, ts, "127.0.0.1")
			fmt.Fprint(conn, tc.request)
			if tc.hangUp {
				_ = conn.(*net.TCPConn).CloseWrite()
			}
			res, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := io.ReadAll(res.Body)
			res.Body.Close()
			b := string(raw)
			if res.StatusCode >= 500 && res.StatusCode != problem.StatusClientClosedRequest {
				t.Fatalf("status %d: %s", res.StatusCode, b)
			}
			if tc.status != 0 && (res.StatusCode != tc.status || !strings.Contains(b, `"code":"`+tc.code+`"`)) {
				t.Errorf("status %d %s, want %d %s", res.StatusCode, b, tc.status, tc.code)
			}
		})
	}
	if l := logs.String(); strings.Contains(l, `"level":"ERROR"`) || !strings.Contains(l, `"status":499`) {
		t.Errorf("log has an ERROR line or no 499 request line:\n%s", l)
	}
}
