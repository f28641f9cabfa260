package auth

import (
	"net/url"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/entity"
)

// Whatever next is, the user is sent to a path on this registry.
func FuzzSafeNext(f *testing.F) {
	for _, s := range []string{"/publish", "//evil.test", "/\\evil.test", "https://evil.test", "/a?b=c#d", "/%2F%2Fevil", "\t//x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, next string) {
		got := SafeNext(next)
		if got != "/" && got != next {
			t.Fatalf("SafeNext(%q) = %q: neither next nor /", next, got)
		}
		u, err := url.Parse(got)
		if err != nil || u.Scheme != "" || u.Host != "" || !strings.HasPrefix(got, "/") || strings.HasPrefix(got, "//") || strings.HasPrefix(got, "/\\") {
			t.Fatalf("SafeNext(%q) = %q leaves this registry", next, got)
		}
	})
}

// An accepted rule names a valid publisher and exactly one of a group or
// a lower-case domain.
func FuzzParseRule(f *testing.F) {
	for _, s := range []string{"engineering=acme", "@Example.com=beta", "=x", "@=x", "a=", "a=b=c", "@a@b=acme"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRule(s)
		if err != nil {
			return
		}
		if _, perr := entity.PublisherOr(r.Publisher); perr != nil || r.Publisher == "" {
			t.Fatalf("ParseRule(%q) accepted publisher %q", s, r.Publisher)
		}
		if (r.Group == "") == (r.Domain == "") || r.Domain != strings.ToLower(r.Domain) {
			t.Fatalf("ParseRule(%q) = %+v", s, r)
		}
	})
}

// Grant gives nothing no rule names and counts a domain only when the
// email is verified.
func TestGrant(t *testing.T) {
	rules := []Rule{{Group: "eng", Publisher: "acme"}, {Domain: "example.com", Publisher: "beta"}}
	for _, c := range []struct {
		claims Claims
		want   Roles
	}{
		{Claims{Groups: []string{"eng", "other"}}, Roles{Publishers: []string{"acme"}}},
		{Claims{Email: "a@example.com", EmailVerified: true}, Roles{Publishers: []string{"beta"}}},
		{Claims{Email: "a@example.com"}, Roles{}},
		{Claims{Email: "a@evil.test@example.com", EmailVerified: false}, Roles{}},
		{Claims{Email: "a@sub.example.com", EmailVerified: true}, Roles{}},
		{Claims{Groups: []string{"admins"}}, Roles{Admin: true}},
		{Claims{Groups: []string{"Eng"}}, Roles{}},
	} {
		got := Grant(rules, []string{"admins"}, c.claims)
		if got.Admin != c.want.Admin || strings.Join(got.Publishers, ",") != strings.Join(c.want.Publishers, ",") {
			t.Errorf("Grant(%+v) = %+v, want %+v", c.claims, got, c.want)
		}
	}
}
