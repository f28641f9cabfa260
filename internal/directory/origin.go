package directory

import (
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"

	"github.com/agora-registry/registry/internal/store"
)

// hostProfile maps a host name as a lookup would (case, width,
// Unicode to punycode) but lets '_' through, as local names have it.
var hostProfile = idna.New(idna.MapForLookup(), idna.StrictDomainName(false), idna.BidiRule(), idna.Transitional(false))

// Origin checks an agent URL and returns the agent it names: its origin,
// scheme://host[:port], the one spelling of every URL of the agent. The
// path is dropped (an agent is its origin; its well-known lists live at
// the root), the default port too; the host is lower-cased, mapped to
// punycode and loses a trailing dot; an IP address is spelled as Go's
// netip does (IPv4-mapped IPv6 as IPv4). Credentials, queries and
// fragments are refused, and so is a host that ends in a number without
// being a dotted-quad IPv4 address (127.1, 0x7f.1 and 2130706433 would
// each name 127.0.0.1).
func Origin(raw string) (string, error) {
	if len(raw) > store.MaxAgentURLBytes {
		return "", ErrBadURL.With(fmt.Sprintf("an agent URL is at most %d bytes", store.MaxAgentURLBytes))
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Opaque != "" || u.Host == "" {
		return "", ErrBadURL
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" || u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return "", ErrBadURL
	}
	host, err := canonicalHost(u.Hostname())
	if err != nil {
		return "", err
	}
	origin := scheme + "://" + host
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return "", ErrBadURL.With("an agent URL's port is 1 to 65535")
		}
		if !(scheme == "http" && n == 80 || scheme == "https" && n == 443) {
			origin += ":" + strconv.Itoa(n)
		}
	}
	return origin, nil
}

var errBadHost = ErrBadURL.With("an agent URL's host is a domain name or an IP address")

// canonicalHost spells a URL's host (without brackets) one way.
func canonicalHost(h string) (string, error) {
	if strings.Contains(h, ":") { // only an IPv6 literal has one
		a, err := netip.ParseAddr(h)
		if err != nil || a.Zone() != "" {
			return "", errBadHost
		}
		if a = a.Unmap(); a.Is4() {
			return a.String(), nil
		}
		return "[" + a.String() + "]", nil
	}
	if !utf8.ValidString(h) {
		return "", errBadHost
	}
	h, err := hostProfile.ToASCII(h)
	if err != nil {
		return "", errBadHost
	}
	if again, err := hostProfile.ToASCII(h); err != nil || again != h {
		return "", errBadHost // a spelling that would not spell itself
	}
	h = strings.TrimSuffix(h, ".")
	labels := strings.Split(h, ".")
	for _, l := range labels {
		if l == "" || strings.Trim(l, "abcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
			return "", errBadHost
		}
	}
	if last := labels[len(labels)-1]; strings.Trim(last, "0123456789") == "" || strings.HasPrefix(last, "0x") {
		a, err := netip.ParseAddr(h)
		if err != nil || !a.Is4() {
			return "", ErrBadURL.With("a numeric agent host is a dotted-quad IPv4 address")
		}
		return a.String(), nil
	}
	return h, nil
}
