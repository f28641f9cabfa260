package config

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"
)

// Typed flag.Values over fields of the option structs.

type stringValue struct{ p *string }

func (v stringValue) Set(s string) error { *v.p = s; return nil }
func (v stringValue) String() string {
	if v.p == nil {
		return ""
	}
	return *v.p
}

type boolValue struct{ p *bool }

func (v boolValue) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("want true or false, got %q", s)
	}
	*v.p = b
	return nil
}
func (v boolValue) String() string   { return strconv.FormatBool(v.p != nil && *v.p) }
func (v boolValue) IsBoolFlag() bool { return true }

type intValue struct {
	p        *int
	min, max int
}

func (v intValue) Set(s string) error {
	n, err := parseSize(s)
	if err != nil {
		return err
	}
	if n < int64(v.min) || n > int64(v.max) {
		return fmt.Errorf("%d is outside [%d, %d]", n, v.min, v.max)
	}
	*v.p = int(n)
	return nil
}
func (v intValue) String() string {
	if v.p == nil {
		return "0"
	}
	return strconv.Itoa(*v.p)
}

// parseSize reads an integer with an optional KiB/MiB suffix.
func parseSize(s string) (int64, error) {
	mult := int64(1)
	for _, suf := range []struct {
		s string
		m int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}} {
		if strings.HasSuffix(s, suf.s) {
			mult, s = suf.m, strings.TrimSuffix(s, suf.s)
			break
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("want an integer (optionally with KiB, MiB or GiB), got %q", s)
	}
	return n * mult, nil
}

type floatValue struct{ p *float64 }

func (v floatValue) Set(s string) error {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 {
		return fmt.Errorf("want a non-negative number, got %q", s)
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
		return fmt.Errorf("want a duration like 5s or 2m, got %q", s)
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
	return fmt.Errorf("want one of %s, got %q", strings.Join(v.choices, ", "), s)
}
func (v choiceValue) String() string {
	if v.p == nil {
		return ""
	}
	return *v.p
}

// listValue is a comma-separated list; setting it replaces the list.
type listValue struct{ p *[]string }

func (v listValue) Set(s string) error {
	*v.p = nil
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			*v.p = append(*v.p, item)
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

func (v prefixListValue) Set(s string) error {
	*v.p = nil
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if !strings.Contains(item, "/") {
			a, err := netip.ParseAddr(item)
			if err != nil {
				return fmt.Errorf("%q is not an IP address or CIDR prefix", item)
			}
			*v.p = append(*v.p, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(item)
		if err != nil {
			return fmt.Errorf("%q is not an IP address or CIDR prefix", item)
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
