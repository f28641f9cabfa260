package config

import (
	"flag"
	"net/netip"
	"time"
)

// The typed values an Option can hold, for option tables outside this
// package (the agent's); each refuses a bad value with what it accepts.

// Text is any string.
func Text(p *string) flag.Value { return stringValue{p} }

// Bool is true or false.
func Bool(p *bool) flag.Value { return boolValue{p} }

// Count is a whole number in [min, max], without a unit.
func Count(p *int, min, max int) flag.Value { return intValue{p, min, max} }

// Size is a number of bytes in [min, max], optionally with KiB, MiB or GiB.
func Size(p *int, min, max int) flag.Value { return sizeValue{p, min, max} }

// Rate is a non-negative number; signed also lets negative numbers in.
func Rate(p *float64, signed bool) flag.Value { return floatValue{p, signed} }

// Duration is a Go duration with a unit.
func Duration(p *time.Duration) flag.Value { return durationValue{p} }

// Choice is one of choices.
func Choice(p *string, choices ...string) flag.Value { return choiceValue{p, choices} }

// List is a comma-separated list (a repeated flag or a YAML sequence
// gives several items).
func List(p *[]string) flag.Value { return listValue{p, false} }

// Paths is a list whose items are kept whole (a repeated flag or a YAML
// sequence, never split at commas).
func Paths(p *[]string) flag.Value { return listValue{p, true} }

// URLPairs maps http(s) URLs to values: URL=VALUE items (comma-separated,
// a repeated flag or a YAML list) or a YAML mapping of URL: VALUE.
func URLPairs(p *map[string]string) flag.Value { return urlPairsValue{p} }

// Prefixes is a comma-separated list of IP addresses and CIDR prefixes.
func Prefixes(p *[]netip.Prefix) flag.Value { return prefixListValue{p} }

// URL is an absolute URL with one of schemes, or empty when allowEmpty.
func URL(p *string, allowEmpty bool, schemes ...string) flag.Value {
	return urlValue{p, schemes, allowEmpty}
}

// HostPort is a listen address, host:port.
func HostPort(p *string) flag.Value { return hostPortValue{p} }

// File is the path of the YAML config file Parse reads before the
// environment and the flags; empty means none.
func File(p *string) flag.Value { return fileValue{p} }

// Section is a structured top-level part of the YAML file decoded into p
// (a pointer), with unknown fields refused.
func Section(p any) flag.Value { return sectionValue{p} }
