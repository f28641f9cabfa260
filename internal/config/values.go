package config

import (
	"errors"
	"fmt"
	"math"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Typed flag.Values over fields of the option structs.

// deref is *p, "" for nil: flag calls String on a zero Value for its
// default check.
func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

type stringValue struct{ p *string }

func (v stringValue) Set(s string) error { *v.p = s; return nil }
func (v stringValue) String() string     { return deref(v.p) }

type boolValue struct{ p *bool }

func (v boolValue) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("want true or false")
	}
	*v.p = b
	return nil
}
func (v boolValue) String() string   { return strconv.FormatBool(v.p != nil && *v.p) }
func (v boolValue) IsBoolFlag() bool { return true }

// intValue is a count: a plain integer; a size suffix is refused, so
// "--rate-burst 1KiB" cannot quietly mean 1,024 requests.
type intValue struct {
	p        *int
	min, max int
}

func (v intValue) Set(s string) error {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return fmt.Errorf("want a whole number from %d to %d (a count, no unit)", v.min, v.max)
	}
	return setInRange(v.p, n, v.min, v.max, strconv.Itoa)
}
func (v intValue) String() string {
	if v.p == nil {
		return "0"
	}
	return strconv.Itoa(*v.p)
}

// sizeValue is a number of bytes, with an optional KiB, MiB or GiB suffix.
type sizeValue struct {
	p        *int
	min, max int
}

func (v sizeValue) Set(s string) error {
	n, err := parseSize(s)
	if err != nil {
		return fmt.Errorf("want a number of bytes from %s to %s (optionally with KiB, MiB or GiB)", formatSize(v.min), formatSize(v.max))
	}
	return setInRange(v.p, n, v.min, v.max, formatSize)
}

// String prints the largest unit that divides the size, so defaults read
// 96MiB, not 100663296.
func (v sizeValue) String() string {
	if v.p == nil {
		return "0"
	}
	return formatSize(*v.p)
}

func setInRange(p *int, n int64, lo, hi int, format func(int) string) error {
	if n < int64(lo) || n > int64(hi) {
		return fmt.Errorf("%d is outside [%s, %s]", n, format(lo), format(hi))
	}
	*p = int(n)
	return nil
}

var sizeUnits = []struct {
	suffix string
	mult   int64
}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}}

// parseSize reads an integer with an optional KiB/MiB/GiB suffix.
func parseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(s, u.suffix) {
			mult, s = u.mult, strings.TrimSuffix(s, u.suffix)
			break
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, err
	}
	if n > math.MaxInt64/mult || n < math.MinInt64/mult {
		return 0, fmt.Errorf("%s overflows", s)
	}
	return n * mult, nil
}

func formatSize(n int) string {
	for _, u := range sizeUnits {
		if n != 0 && int64(n)%u.mult == 0 {
			return strconv.FormatInt(int64(n)/u.mult, 10) + u.suffix
		}
	}
	return strconv.Itoa(n)
}

// floatValue is a rate; signed lets a negative number through (the
// option's usage says what it means).
type floatValue struct {
	p      *float64
	signed bool
}

func (v floatValue) Set(s string) error {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	switch {
	case v.signed && (err != nil || math.IsNaN(f) || math.IsInf(f, 0)):
		return fmt.Errorf("want a number")
	case !v.signed && (err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0):
		return fmt.Errorf("want a non-negative number")
	}
	*v.p = f
	return nil
}
func (v floatValue) String() string {
	if v.p == nil {
		return "0"
	}
	return strconv.FormatFloat(*v.p, 'g', -1, 64)
}

type durationValue struct{ p *time.Duration }

func (v durationValue) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return fmt.Errorf("want a duration with a unit, like 30s, 5m or 1h")
	}
	*v.p = d
	return nil
}
func (v durationValue) String() string {
	if v.p == nil {
		return "0s"
	}
	return v.p.String()
}

type choiceValue struct {
	p       *string
	choices []string
}

func (v choiceValue) Set(s string) error {
	for _, c := range v.choices {
		if s == c {
			*v.p = s
			return nil
		}
	}
	shown := slices.Clone(v.choices)
	for i, c := range shown {
		if c == "" {
			shown[i] = `"" (empty)`
		}
	}
	return fmt.Errorf("want one of %s", strings.Join(shown, ", "))
}
func (v choiceValue) String() string { return deref(v.p) }

// listSetter is a list option: a repeated flag, or a YAML sequence,
// gives all its items at once.
type listSetter interface{ setList(items []string) error }

// listValue is a comma-separated list; setting it replaces the list.
// whole keeps each item as given (file paths may hold commas).
type listValue struct {
	p     *[]string
	whole bool
}

func (v listValue) Set(s string) error {
	if s == "" {
		*v.p = nil
		return nil
	}
	return v.setList([]string{s})
}

func (v listValue) setList(items []string) error {
	*v.p = nil
	for _, s := range items {
		parts := []string{s}
		if !v.whole {
			parts = strings.Split(s, ",")
		}
		for _, item := range parts {
			if item = strings.TrimSpace(item); item != "" {
				*v.p = append(*v.p, item)
			}
		}
	}
	return nil
}
func (v listValue) String() string {
	if v.p == nil {
		return ""
	}
	return strings.Join(*v.p, ",")
}

// prefixListValue is a comma-separated list of IP prefixes (a bare address
// is a single-address prefix).
type prefixListValue struct{ p *[]netip.Prefix }

func (v prefixListValue) Set(s string) error { return v.setList([]string{s}) }

func (v prefixListValue) setList(items []string) error {
	*v.p = nil
	for _, item := range strings.Split(strings.Join(items, ","), ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if !strings.Contains(item, "/") {
			a, err := netip.ParseAddr(item)
			if err != nil {
				return fmt.Errorf("%q is not an IP address or CIDR prefix (like 10.0.0.1 or 10.0.0.0/8)", item)
			}
			*v.p = append(*v.p, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(item)
		if err != nil {
			return fmt.Errorf("%q is not an IP address or CIDR prefix (like 10.0.0.1 or 10.0.0.0/8)", item)
		}
		*v.p = append(*v.p, p.Masked())
	}
	return nil
}
func (v prefixListValue) String() string {
	if v.p == nil {
		return ""
	}
	var s []string
	for _, p := range *v.p {
		s = append(s, p.String())
	}
	return strings.Join(s, ",")
}

// urlValue is an absolute URL with one of the given schemes; empty when
// allowEmpty (its meaning is in the option's usage).
type urlValue struct {
	p          *string
	schemes    []string
	allowEmpty bool
}

func (v urlValue) Set(s string) error {
	if s == "" && v.allowEmpty {
		*v.p = s
		return nil
	}
	if u, err := url.Parse(s); err == nil && u.Host != "" && slices.Contains(v.schemes, strings.ToLower(u.Scheme)) {
		*v.p = s
		return nil
	}
	want := "a URL starting with " + strings.Join(v.schemes, ":// or ") + "://"
	if v.allowEmpty {
		want += ", or empty"
	}
	return errors.New("want " + want)
}
func (v urlValue) String() string { return deref(v.p) }

// redact hides a password in the URL before an error message shows it.
func (v urlValue) redact(s string) string {
	if u, err := url.Parse(s); err == nil {
		return u.Redacted()
	}
	if i := strings.LastIndex(s, "@"); i >= 0 {
		return "(hidden)" + s[i:]
	}
	return s
}

// fileValue is the path of the YAML config file Parse reads first.
type fileValue struct{ p *string }

func (v fileValue) Set(s string) error { *v.p = s; return nil }
func (v fileValue) String() string     { return deref(v.p) }

// hostPortValue is a listen address: host:port, the host may be empty.
type hostPortValue struct{ p *string }

func (v hostPortValue) Set(s string) error {
	if _, _, err := net.SplitHostPort(s); err != nil {
		return errors.New("want host:port, like 127.0.0.1:8080, :8080 or [::1]:8080")
	}
	*v.p = s
	return nil
}
func (v hostPortValue) String() string { return deref(v.p) }
