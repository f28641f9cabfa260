package api

import (
	"net"
	"net/netip"

	"github.com/labstack/echo/v4"
)

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
