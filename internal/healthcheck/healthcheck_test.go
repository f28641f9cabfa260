package healthcheck

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestURL(t *testing.T) {
	for in, want := range map[string]string{
		":8080":          "http://127.0.0.1:8080/healthz",
		"0.0.0.0:9090":   "http://127.0.0.1:9090/healthz",
		"[::]:8081":      "http://127.0.0.1:8081/healthz",
		"127.0.0.1:8080": "http://127.0.0.1:8080/healthz",
	} {
		got, err := URL(in)
		if err != nil || got != want {
			t.Errorf("URL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"8080", "", "host:", ":0", "a:b:c"} {
		if _, err := URL(bad); err == nil {
			t.Errorf("URL(%q) accepted", bad)
		}
	}
}

func TestProbe(t *testing.T) {
	status := http.StatusOK
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" {
			http.NotFound(w, r)
			return
		}
		w.WriteHeader(status)
	}))
	defer ts.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(ts.URL, "http://"))
	url, err := URL(":" + port)
	if err != nil {
		t.Fatal(err)
	}
	if err := Probe(context.Background(), url); err != nil {
		t.Fatalf("healthy server: %v", err)
	}
	status = http.StatusServiceUnavailable
	if err := Probe(context.Background(), url); err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("unhealthy server: got %v, want a 503 error", err)
	}
	ts.Close()
	if err := Probe(context.Background(), url); err == nil {
		t.Fatal("closed server: probe succeeded")
	}
}
