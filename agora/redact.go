package agora

import (
	"errors"
	"net"
	"net/url"
	"syscall"
)

// RedactURL is rawURL fit for a log line: the password and every query
// value are replaced (API keys travel in queries as often as in userinfo),
// the fragment is dropped. An unparseable URL is not shown at all.
func RedactURL(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "(unparseable URL)"
	}
	if q := u.Query(); len(q) > 0 {
		for k, vs := range q {
			for i := range vs {
				vs[i] = "xxxxx"
			}
			q[k] = vs
		}
		u.RawQuery = q.Encode()
	}
	u.Fragment, u.RawFragment = "", ""
	return u.Redacted()
}

// RedactError strips the *url.Error an http.Client wraps round every failure,
// whose URL keeps the query (and so any key in it); log the cause beside
// RedactURL instead.
func RedactError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// failureText names the kind of a transport failure in words fit for a
// stranger: never the raw Go error, which carries the agent's resolver
// address, local ports and internal host names.
func failureText(err error) string {
	var timeout interface{ Timeout() bool }
	var dnsErr *net.DNSError
	switch {
	case errors.As(err, &dnsErr):
		return "the host name could not be resolved"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "the connection was refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "the connection was reset"
	case errors.As(err, &timeout) && timeout.Timeout():
		return "the fetch timed out"
	}
	return "the fetch failed"
}
