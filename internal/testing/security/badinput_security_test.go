package security

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// hostile is one hostile request and the answer it must get: a 4xx status
// (exactly status, when set) and the stable problem code.
type hostile struct {
	name   string
	method string
	path   string
	ctype  string
	body   string
	auth   string // "publish", "admin" or ""
	status int
	code   string
}

func deepJSON(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

func manyHashes(n int) string {
	hs := make([]string, n)
	for i := range hs {
		hs[i] = fmt.Sprintf("%040x", i)
	}
	b, _ := json.Marshal(map[string]any{"hashes": hs})
	return string(b)
}

// tamper returns variants of a real cursor an attacker could send.
func tamperedCursors(real string) map[string]string {
	raw, _ := base64.RawURLEncoding.DecodeString(real)
	var c map[string]any
	_ = json.Unmarshal(raw, &c)
	enc := func(m map[string]any) string {
		b, _ := json.Marshal(m)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	with := func(k string, v any) string {
		m := map[string]any{}
		for kk, vv := range c {
			m[kk] = vv
		}
		m[k] = v
		return enc(m)
	}
	flipped := []byte(real)
	flipped[len(flipped)/2] ^= 1
	return map[string]string{
		"flipped byte":  string(flipped),
		"truncated":     real[:len(real)-3],
		"not base64":    "!!!$$$",
		"padded base64": real + "==",
		"json array":    base64.RawURLEncoding.EncodeToString([]byte(`[1,2,3]`)),
		"json null":     base64.RawURLEncoding.EncodeToString([]byte(`null`)),
		"hex sql":       with("h", "' OR 1=1 --"),
		"hex short":     with("h", "abc"),
		"hex type":      with("h", 12345),
		"other query":   with("q", 1),
		"other sort":    with("s", "name"),
		"time string":   with("t", "yesterday"),
		"huge":          strings.Repeat("A", 10_000),
		"deep json":     base64.RawURLEncoding.EncodeToString([]byte(deepJSON(10_000))),
		"nul":           "abc\x00def",
	}
}

func badInputTable(t *testing.T, s *Server) []hostile {
	t.Helper()
	// A real cursor of a real query to tamper with.
	r := do(t, nil, "GET", s.URL+"/api/v1/protocols?q=doc&limit=1", nil, nil)
	var page struct {
		NextCursor string `json:"nextCursor"`
	}
	if err := json.Unmarshal([]byte(r.Body), &page); err != nil || page.NextCursor == "" {
		t.Fatalf("no cursor to tamper with: %d %s", r.Status, r.Body)
	}
	hex40 := strings.Repeat("ab", 20)
	md, js, form := "text/markdown", "application/json", "application/x-www-form-urlencoded"
	rows := []hostile{
		// Publish: JSON API.
		{"publish wrong type content", "POST", "/api/v1/protocols", js, `{"content": 5}`, "publish", 400, ""},
		{"publish wrong type tags", "POST", "/api/v1/protocols", js, `{"content": "# x", "tags": "a,b"}`, "publish", 400, ""},
		{"publish tags of objects", "POST", "/api/v1/protocols", js, `{"content": "# x", "tags": [{}]}`, "publish", 400, ""},
		{"publish JSON null", "POST", "/api/v1/protocols", js, `null`, "publish", 400, ""},
		{"publish JSON array", "POST", "/api/v1/protocols", js, `[]`, "publish", 400, ""},
		{"publish truncated JSON", "POST", "/api/v1/protocols", js, `{"content": "`, "publish", 400, ""},
		{"publish trailing JSON", "POST", "/api/v1/protocols", js, `{"content": "# a"} {"content": "# b"}`, "publish", 400, ""},
		{"publish deep nesting", "POST", "/api/v1/protocols", js, `{"content": "# x", "tags": ` + deepJSON(10_000) + `}`, "publish", 400, ""},
		{"publish deep nesting bare", "POST", "/api/v1/protocols", js, deepJSON(10_000), "publish", 400, ""},
		{"publish huge JSON", "POST", "/api/v1/protocols", js, `{"content": "` + strings.Repeat("x", 4<<20) + `"}`, "publish", 413, ""},
		{"publish huge raw", "POST", "/api/v1/protocols", md, strings.Repeat("x", 4<<20), "publish", 413, ""},
		{"publish document over 1 MiB", "POST", "/api/v1/protocols", md, strings.Repeat("y", 1<<20+1), "publish", 413, ""},
		{"publish invalid UTF-8 raw", "POST", "/api/v1/protocols", md, "# bad \xff\xfe utf8", "publish", 400, ""},
		{"publish invalid UTF-8 in JSON", "POST", "/api/v1/protocols", js, "{\"content\": \"# bad \xff\"}", "publish", 400, ""},
		{"publish NUL raw", "POST", "/api/v1/protocols", md, "# nul \x00 here", "publish", 400, ""},
		{"publish NUL escaped in JSON", "POST", "/api/v1/protocols", js, `{"content": "# nul \u0000 here"}`, "publish", 400, ""},
		{"publish empty", "POST", "/api/v1/protocols", md, "", "publish", 400, ""},
		{"publish bad content type", "POST", "/api/v1/protocols", "application/xml", "<doc/>", "publish", 415, ""},
		{"publish form content type", "POST", "/api/v1/protocols", form, "content=x", "publish", 415, ""},
		{"publish garbage content type", "POST", "/api/v1/protocols", ";;=", "# x", "publish", 415, ""},
		{"publish multipart content type", "POST", "/api/v1/protocols", "multipart/form-data; boundary=x", "--x--", "publish", 415, ""},
		{"publish without token", "POST", "/api/v1/protocols", md, "# no token", "", 401, ""},
		// Demo publish.
		{"demo publish wrong types", "POST", "/", js, `{"name": 1, "description": [], "protocol": {}}`, "publish", 400, ""},
		{"demo publish deep nesting", "POST", "/", js, `{"protocol": ` + deepJSON(10_000) + `}`, "publish", 400, ""},
		{"demo publish invalid UTF-8", "POST", "/", js, "{\"name\":\"n\",\"description\":\"d\",\"protocol\":\"\xff\"}", "publish", 400, ""},
		{"demo publish NUL", "POST", "/", js, `{"name":"n","description":"d","protocol":"a\u0000b"}`, "publish", 400, ""},
		// Search.
		{"search query too long", "GET", "/api/v1/protocols?q=" + strings.Repeat("a", 1000), "", "", "", 400, ""},
		{"search invalid UTF-8", "GET", "/api/v1/protocols?q=%ff%fe", "", "", "", 400, ""},
		{"search limit negative", "GET", "/api/v1/protocols?limit=-1", "", "", "", 400, ""},
		{"search limit text", "GET", "/api/v1/protocols?limit=ten", "", "", "", 400, ""},
		{"search limit overflow", "GET", "/api/v1/protocols?limit=99999999999999999999999", "", "", "", 400, ""},
		{"search limit float", "GET", "/api/v1/protocols?limit=1e9", "", "", "", 400, ""},
		{"search bad sort", "GET", "/api/v1/protocols?sort=hex%3BDROP", "", "", "", 400, ""},
		{"search too many tags", "GET", "/api/v1/protocols?tag=a&tag=b&tag=c&tag=d&tag=e&tag=f", "", "", "", 400, ""},
		{"search bad tag", "GET", "/api/v1/protocols?tag=%00", "", "", "", 400, ""},
		// Single entries and raw documents.
		{"get bad hash", "GET", "/api/v1/protocols/not-a-hash", "", "", "", 400, ""},
		{"get NUL in hash", "GET", "/api/v1/protocols/%00", "", "", "", 400, ""},
		{"get NUL after hash", "GET", "/api/v1/protocols/" + hex40 + "%00", "", "", "", 400, ""},
		{"get traversal", "GET", "/api/v1/protocols/..%2f..%2fetc%2fpasswd", "", "", "", 400, ""},
		{"get huge hash", "GET", "/api/v1/protocols/" + strings.Repeat("a", 5000), "", "", "", 400, ""},
		{"get invalid UTF-8 hash", "GET", "/api/v1/protocols/%ff%fe", "", "", "", 400, ""},
		{"raw bad hash", "GET", "/protocol/zz", "", "", "", 400, ""},
		{"raw NUL", "GET", "/protocol/%00", "", "", "", 400, ""},
		{"raw query missing", "GET", "/protocol", "", "", "", 400, ""},
		{"raw query NUL", "GET", "/protocol?id=%00", "", "", "", 400, ""},
		{"raw query array", "GET", "/protocol?id=a&id=b", "", "", "", 400, ""},
		{"metadata bad id", "GET", "/metadata?id=%ff", "", "", "", 400, ""},
		// Withdraw.
		{"withdraw without token", "DELETE", "/api/v1/protocols/" + hex40, "", "", "", 401, ""},
		{"withdraw with publish token", "DELETE", "/api/v1/protocols/" + hex40, "", "", "publish", 403, ""},
		{"withdraw bad hash", "DELETE", "/api/v1/protocols/%00", "", "", "admin", 400, ""},
		{"withdraw unknown", "DELETE", "/api/v1/protocols/" + strings.Repeat("0", 40), "", "", "admin", 404, ""},
		{"withdraw huge reason", "DELETE", "/api/v1/protocols/" + hex40 + "?reason=" + strings.Repeat("r", 100_000), "", "", "admin", 0, ""},
		// Resolve.
		{"resolve 10,000 hashes", "POST", "/api/v1/resolve", js, manyHashes(10_000), "", 0, ""},
		{"resolve wrong type", "POST", "/api/v1/resolve", js, `{"hashes": "abc"}`, "", 400, ""},
		{"resolve numbers", "POST", "/api/v1/resolve", js, `{"hashes": [1, 2]}`, "", 400, ""},
		{"resolve deep nesting", "POST", "/api/v1/resolve", js, `{"hashes": ` + deepJSON(10_000) + `}`, "", 400, ""},
		{"resolve invalid UTF-8", "POST", "/api/v1/resolve", js, "{\"hashes\": [\"\xff\"]}", "", 400, ""},
		{"resolve XML", "POST", "/api/v1/resolve", "application/xml", `<hashes/>`, "", 400, ""},
		{"resolve huge", "POST", "/api/v1/resolve", js, `{"hashes": ["` + strings.Repeat("a", 4<<20) + `"]}`, "", 413, ""},
		{"resolve not JSON", "POST", "/api/v1/resolve", js, `hashes=1`, "", 400, ""},
		// Tags.
		{"tags limit text", "GET", "/api/v1/tags?limit=many", "", "", "", 400, ""},
		// Wrong methods and unknown routes.
		{"PUT protocols", "PUT", "/api/v1/protocols", js, `{}`, "publish", 405, ""},
		{"unknown route", "GET", "/api/v1/%00", "", "", "", 404, ""},
	}
	for name, c := range tamperedCursors(page.NextCursor) {
		rows = append(rows, hostile{"cursor " + name, "GET", "/api/v1/protocols?q=doc&limit=1&cursor=" + url.QueryEscape(c), "", "", "", 400, "invalid_cursor"})
	}
	// SQL and full-text metacharacters are search text: answered, not
	// errors, and harmless. They are run as 200s in TestSearchMetacharacters.
	return rows
}

// searchMetacharacters are SQL, FTS5 and tsquery syntax typed into q.
var searchMetacharacters = []string{
	`'`, `"`, `''; DROP TABLE documents; --`, `" OR 1=1 --`, `\`, `%`, `_`, `*`, `a*`, `^a`, `-a`, `+a`,
	`a OR b`, `a AND NOT b`, `NEAR(a b, 2)`, `title:a`, `{title}: a`, `a & b`, `a | b`, `!a`, `a <-> b`, `a:*`,
	`(a`, `a)`, `"unterminated`, `$$`, `;`, `/*`, `*/`, `--`, `\x00`, "a\x00b", `\u0000`, `%00`, `ÿ`, `🙂*`,
	`a:b:c`, `@@`, `::`, `?`, `$1`, `e'\x41'`,
}

func TestSearchMetacharactersAreText(t *testing.T) {
	for _, engine := range Engines {
		t.Run(engine, func(t *testing.T) {
			s := Start(t, Options{Engine: engine})
			publishDoc(t, s, "# doc\n\nweather forecast")
			before := s.Snapshot(t)
			for _, q := range searchMetacharacters {
				for _, path := range []string{"/api/v1/protocols?q=", "/protocols?q="} {
					r := do(t, nil, "GET", s.URL+path+url.QueryEscape(q), nil, nil)
					if r.Status != 200 && r.Status != 400 {
						t.Errorf("q=%q on %s: status %d %.200s", q, path, r.Status, r.Body)
					}
					if r.Status == 400 && !strings.Contains(path, "/api/") {
						continue
					}
					if r.Status == 400 {
						r.problem(t)
					}
				}
			}
			if after := s.Snapshot(t); !after.Equal(before) {
				t.Fatalf("searching changed the store")
			}
			t.Logf("%s: %d metacharacter queries answered", engine, len(searchMetacharacters))
		})
	}
}

func TestBadInputTable(t *testing.T) {
	for _, engine := range Engines {
		t.Run(engine, func(t *testing.T) {
			s := Start(t, Options{Engine: engine})
			for i := 0; i < 3; i++ {
				publishDoc(t, s, fmt.Sprintf("---\nname: doc %d\ntags: [t%d]\n---\ndoc body %d", i, i, i))
			}
			gone := publishDoc(t, s, "# doc gone\n\nwithdrawn doc")
			if r := do(t, nil, "DELETE", s.URL+"/api/v1/protocols/"+gone, map[string]string{"Authorization": "Bearer " + s.AdminToken}, nil); r.Status >= 300 {
				t.Fatalf("withdraw: %d", r.Status)
			}
			rows := badInputTable(t, s)
			before := s.Snapshot(t)
			codes := map[string]int{}
			for _, h := range rows {
				hdr := map[string]string{"Accept": "application/json"}
				if h.ctype != "" {
					hdr["Content-Type"] = h.ctype
				}
				switch h.auth {
				case "publish":
					hdr["Authorization"] = "Bearer " + s.PublishToken
				case "admin":
					hdr["Authorization"] = "Bearer " + s.AdminToken
				}
				var body *strings.Reader
				if h.body != "" {
					body = strings.NewReader(h.body)
				}
				var r response
				if body != nil {
					r = do(t, nil, h.method, s.URL+h.path, hdr, body)
				} else {
					r = do(t, nil, h.method, s.URL+h.path, hdr, nil)
				}
				if r.Status < 400 || r.Status > 499 || (h.status != 0 && r.Status != h.status) {
					t.Errorf("%s: status %d, want %v: %.300s", h.name, r.Status, orAny4xx(h.status), r.Body)
					continue
				}
				code := r.problem(t)
				if h.code != "" && code != h.code {
					t.Errorf("%s: code %q, want %q", h.name, code, h.code)
				}
				codes[code]++
			}
			if after := s.Snapshot(t); !after.Equal(before) {
				t.Fatalf("hostile requests changed the store:\nbefore %+v\nafter  %+v", before, after)
			}
			t.Logf("%s: %d hostile requests, all 4xx, store unchanged; codes %v", engine, len(rows), codes)
		})
	}
}

func orAny4xx(status int) any {
	if status == 0 {
		return "any 4xx"
	}
	return status
}
