package agora

import (
	"fmt"
	"net/netip"
	"strings"
)

// checkHost refuses host names that some resolvers read as IP addresses in
// legacy inet_aton spellings (2130706433, 0x7f000001, 0177.0.0.1, 127.1).
// Go's resolver treats them as names and C's getaddrinfo as addresses, so
// their meaning depends on the machine; refusing them outright gives one
// clear answer and never sends such a name to DNS.
func checkHost(host string) error {
	if host == "" {
		return ErrFetchScheme.With("the URL has no host")
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return nil // canonical dotted quad or IPv6: the dial-time guard vets it
	}
	if strings.Trim(strings.ToLower(host), "0123456789abcdefx.") == "" && looksNumeric(host) {
		return ErrFetchBlocked.With(fmt.Sprintf("refusing host %q: a numeric address in a non-standard spelling (decimal, octal or hex)", host))
	}
	return nil
}

// looksNumeric reports whether every dot-separated part of host is a
// decimal, 0-prefixed octal or 0x-prefixed hex number.
func looksNumeric(host string) bool {
	for _, part := range strings.Split(strings.TrimSuffix(host, "."), ".") {
		p := strings.ToLower(part)
		switch {
		case p == "":
			return false
		case strings.HasPrefix(p, "0x"):
			if strings.Trim(p[2:], "0123456789abcdef") != "" {
				return false
			}
		default:
			if strings.Trim(p, "0123456789") != "" {
				return false
			}
		}
	}
	return true
}
