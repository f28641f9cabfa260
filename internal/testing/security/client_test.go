package security

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"
)

type response struct {
	Status int
	Header http.Header
	Body   string
}

// problem decodes the API's error body.
func (r response) problem(t *testing.T) (code string) {
	t.Helper()
	var p struct {
		Code   string `json:"code"`
		Status int    `json:"status"`
	}
	if err := json.Unmarshal([]byte(r.Body), &p); err != nil || p.Code == "" {
		t.Fatalf("status %d: body is not a problem with a code: %.300q", r.Status, r.Body)
	}
	return p.Code
}

func do(t *testing.T, c *http.Client, method, url string, header map[string]string, body io.Reader) response {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{resp.StatusCode, resp.Header, string(b)}
}

// publishJSON publishes through the JSON API and returns the hex digest.
func publishDoc(t *testing.T, s *Server, doc string) string {
	t.Helper()
	r := do(t, nil, "POST", s.URL+"/api/v1/protocols",
		map[string]string{"Authorization": "Bearer " + s.PublishToken, "Content-Type": "text/markdown"}, strings.NewReader(doc))
	if r.Status != 201 && r.Status != 200 {
		t.Fatalf("publish: %d %s", r.Status, r.Body)
	}
	var out struct {
		Hex string `json:"hex"`
	}
	if err := json.Unmarshal([]byte(r.Body), &out); err != nil || len(out.Hex) != 40 {
		t.Fatalf("publish answer %s: %v", r.Body, err)
	}
	return out.Hex
}

func browser(t *testing.T) *http.Client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// multipartForm encodes fields as the publish form sends them.
func multipartForm(t *testing.T, fields map[string]string) (io.Reader, string) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for k, v := range fields {
		if err := w.WriteField(k, v); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return &buf, w.FormDataContentType()
}
