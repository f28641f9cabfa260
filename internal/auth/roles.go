package auth

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agora-registry/registry/internal/entity"
)

// Rule gives the users of a group, or with a verified email address in a
// domain, the right to act as a publisher.
type Rule struct {
	Group     string // a value of the groups claim; "" for a domain rule
	Domain    string // an email domain, lower case, without "@"; "" for a group rule
	Publisher string
}

// ParseRule reads --oidc-publisher: GROUP=PUBLISHER, or @DOMAIN=PUBLISHER
// for the users whose verified email address is in DOMAIN.
func ParseRule(s string) (Rule, error) {
	who, pub, ok := strings.Cut(strings.TrimSpace(s), "=")
	who, pub = strings.TrimSpace(who), strings.TrimSpace(pub)
	if !ok || who == "" || who == "@" || pub == "" {
		return Rule{}, fmt.Errorf("--oidc-publisher %q: write GROUP=PUBLISHER or @EMAIL_DOMAIN=PUBLISHER", s)
	}
	if _, err := entity.PublisherOr(pub); err != nil {
		return Rule{}, fmt.Errorf("--oidc-publisher %q: %q is not a publisher name (2 to 39 lower-case letters, digits and '-')", s, pub)
	}
	if d, isDomain := strings.CutPrefix(who, "@"); isDomain {
		if strings.ContainsAny(d, "@ /") {
			return Rule{}, fmt.Errorf("--oidc-publisher %q: %q is not an email domain", s, d)
		}
		return Rule{Domain: strings.ToLower(d), Publisher: pub}, nil
	}
	return Rule{Group: who, Publisher: pub}, nil
}

// Claims are the parts of a verified ID token roles are read from.
type Claims struct {
	Subject       string   `json:"sub"`
	Email         string   `json:"email"`
	EmailVerified bool     `json:"email_verified"`
	Groups        []string `json:"groups"`
}

// Roles are what a signed-in user may do beyond reading.
type Roles struct {
	Admin      bool
	Publishers []string // sorted, without duplicates
}

// Grant applies the rules to a user's claims. Nothing is granted that no
// rule names; a domain rule counts only a verified email address.
func Grant(rules []Rule, adminGroups []string, c Claims) Roles {
	var r Roles
	for _, g := range adminGroups {
		if slices.Contains(c.Groups, g) {
			r.Admin = true
		}
	}
	domain := ""
	if at := strings.LastIndexByte(c.Email, '@'); at >= 0 && c.EmailVerified {
		domain = strings.ToLower(c.Email[at+1:])
	}
	for _, rule := range rules {
		if (rule.Group != "" && slices.Contains(c.Groups, rule.Group)) || (rule.Domain != "" && rule.Domain == domain) {
			r.Publishers = append(r.Publishers, rule.Publisher)
		}
	}
	slices.Sort(r.Publishers)
	r.Publishers = slices.Compact(r.Publishers)
	return r
}

// User is a signed-in browser's user.
type User struct {
	Subject string
	Email   string
	Roles
}

// Name is how logs and token records name the user: the email address,
// else the subject.
func (u User) Name() string {
	if u.Email != "" {
		return u.Email
	}
	return "sub:" + u.Subject
}

// CanActFor reports whether the user may publish, deprecate and manage
// tokens as publisher.
func (u User) CanActFor(publisher string) bool {
	return u.Admin || slices.Contains(u.Publishers, publisher)
}

// SessionTokenID marks the token a session acts through: it is never
// stored, so no stored token has this id.
const SessionTokenID = -1

// Token is the token the user acts through as publisher (the registry's
// business rules take a token): publish for a publisher the user may act
// as, admin for an administrator, read otherwise.
func (u User) Token(publisher string) entity.Token {
	t := entity.Token{ID: SessionTokenID, Name: u.Name(), Publisher: publisher, Scopes: []entity.Scope{entity.ScopeRead}}
	switch {
	case u.Admin:
		t.Scopes = []entity.Scope{entity.ScopeAdmin}
	case slices.Contains(u.Publishers, publisher):
		t.Scopes = []entity.Scope{entity.ScopePublish}
	}
	return t
}

// GrantableScopes are the scopes the user may put on a token of
// publisher: none for a publisher the user may not act as.
func (u User) GrantableScopes(publisher string) []entity.Scope {
	switch {
	case u.Admin:
		return []entity.Scope{entity.ScopeRead, entity.ScopePublish, entity.ScopeAdmin}
	case slices.Contains(u.Publishers, publisher):
		return []entity.Scope{entity.ScopeRead, entity.ScopePublish}
	}
	return nil
}
