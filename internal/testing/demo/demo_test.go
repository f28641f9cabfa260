package demo

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/testing/security"
)

// linkNext reads a Link header's rel="next" target.
var linkNext = regexp.MustCompile(`^<([^>]+)>; rel="next"$`)

// decide_protocol searches the DB's whole list, so a protocol published
// before the newest ones must be in it: the list is every listed
// document, oldest first, in pages of DemoListLimit joined by Link.
func TestDemoListIsEveryProtocolOldestFirst(t *testing.T) {
	const limit = 3
	eachEngine(t, security.Options{DemoListLimit: limit}, func(t *testing.T, s *security.Server) {
		var ids []string
		for i := range 8 {
			res, id, _ := submit(t, s, fmt.Sprintf("Demo %d", i), fmt.Sprintf("Negotiated protocol %d", i),
				fmt.Sprintf("Protocol %d: send a JSON object with a city, get the weather.", i))
			if res.Status != 200 {
				t.Fatalf("submit %d: %d %s", i, res.Status, res.Body)
			}
			ids = append(ids, id)
		}
		withdrawn := ids[4]
		hexOf := func(id string) string {
			var v struct{ Hex string }
			r := call(t, "GET", s.URL+"/api/v1/protocols/"+url.PathEscape(id), "")
			if json.Unmarshal(r.Body, &v) != nil || v.Hex == "" {
				t.Fatalf("get %s: %d %s", id, r.Status, r.Body)
			}
			return v.Hex
		}
		// The demo never withdraws; an administrator does.
		if r := call(t, "DELETE", s.URL+"/api/v1/protocols/"+hexOf(withdrawn), "", "Authorization", "Bearer "+s.AdminToken); r.Status != 204 {
			t.Fatalf("withdraw: %d %s", r.Status, r.Body)
		}
		want := slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return id == withdrawn })

		var got []string
		next, pages := s.URL, 0
		for next != "" {
			if pages++; pages > 10 {
				t.Fatal("the Link chain does not end")
			}
			l, res := getList(t, next)
			if len(l.Protocols) > limit {
				t.Fatalf("page %d holds %d protocols; the limit is %d", pages, len(l.Protocols), limit)
			}
			for i, p := range l.Protocols {
				got = append(got, p.ID)
				if n := slices.Index(ids, p.ID); p.Name != fmt.Sprintf("Demo %d", n) || p.Description != fmt.Sprintf("Negotiated protocol %d", n) {
					t.Errorf("page %d item %d: %+v", pages, i, p)
				}
			}
			next = ""
			if link := res.Header.Get("Link"); link != "" {
				m := linkNext.FindStringSubmatch(link)
				if m == nil || !strings.HasPrefix(m[1], s.URL+"/?after=") {
					t.Fatalf("Link %q", link)
				}
				next = m[1]
			} else if len(l.Protocols) == limit && len(got) < len(want) {
				t.Fatalf("page %d is full but has no Link", pages)
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("the pages list\n%q\nwant every listed protocol oldest first\n%q", got, want)
		}
		// decide_protocol fetches each listed id as it builds the URI.
		for _, id := range got {
			if r := call(t, "GET", s.URL+"/protocol?"+url.Values{"id": {id}}.Encode(), ""); r.Status != 200 || computeHash(t, string(r.Body)) != id {
				t.Fatalf("fetch of listed %s: %d", id, r.Status)
			}
		}
		for _, bad := range []string{"x", "1.zz", "12", "1." + strings.Repeat("a", 39)} {
			r := call(t, "GET", s.URL+"/?after="+url.QueryEscape(bad), "")
			if r.Status != 400 || !strings.Contains(string(r.Body), `"code":"invalid_cursor"`) {
				t.Errorf("after=%q: %d %s", bad, r.Status, r.Body)
			}
		}
	})
}
