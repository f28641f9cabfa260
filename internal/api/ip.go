package api

import (
	"net"
	"net/netip"

	"github.com/labstack/echo/v4"
)

// DefaultIPv6ClientPrefix is how many leading bits of an IPv6 address name
// one client: a /64 is what one subscriber gets, so keying by address
// would hand each of them 2^64 buckets.
const DefaultIPv6ClientPrefix = 64

// ipExtractor decides which address is the client. X-Forwarded-For is
// only believed from the configured proxies; otherwise the TCP peer is the
// client, so nobody can pick their own rate-limit bucket.
func ipExtractor(trusted []netip.Prefix) echo.IPExtractor {
	if len(trusted) == 0 {
		return echo.ExtractIPDirect()
	}
	opts := []echo.TrustOption{echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
	for _, p := range trusted {
		opts = append(opts, echo.TrustIPRange(&net.IPNet{IP: p.Addr().AsSlice(), Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen())}))
	}
	return echo.ExtractIPFromXFFHeader(opts...)
}

// ClientKey is the client an address counts as: an IPv4 address (also
// IPv4-mapped IPv6) is itself, an IPv6 address is its first v6Bits bits.
// loopback reports a loopback address. Text that is no address (the
// extractor never yields one) counts as one shared unknown client.
func ClientKey(ip string, v6Bits int) (key netip.Addr, loopback bool) {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return netip.Addr{}, false
	}
	a = a.Unmap().WithZone("")
	if a.Is6() {
		if p, err := a.Prefix(v6Bits); err == nil {
			return p.Addr(), a.IsLoopback()
		}
	}
	return a, a.IsLoopback()
}
