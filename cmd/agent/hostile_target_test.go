package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
)

// hostileTarget answers on a raw socket, so it can write what net/http's
// server never would: a reason phrase holding escape sequences.
func hostileTarget(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func(conn net.Conn) {
				defer conn.Close()
				br := bufio.NewReader(conn)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					if req.Method == http.MethodGet {
						fmt.Fprint(conn, "HTTP/1.1 404 \x1b]0;pwned\x07\x1b[2J\r\nContent-Length: 0\r\n\r\n")
						continue
					}
					body, _ := json.Marshal(map[string]string{"status": "success", "body": "ok", "conversationId": "c\x1b[2J\x1b]0;pwned\x07"})
					fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
				}
			}(conn)
		}
	}()
	return "http://" + ln.Addr().String()
}

// What a hostile target writes (its status line's reason phrase, its
// conversation id) reaches the user's terminal without escape sequences.
func TestSendPrintsNoEscapesFromATarget(t *testing.T) {
	code, out, errOut := runAgent(nil, "send", "--to", hostileTarget(t), "--natural", "--body", "hi")
	if code != 0 || out != "ok\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if strings.ContainsAny(errOut, "\x1b\x07") {
		t.Fatalf("stderr carries the target's escape sequences: %q", errOut)
	}
	if !strings.Contains(errOut, "404 Not Found") {
		t.Fatalf("the well-known failure is not named: %q", errOut)
	}
}
