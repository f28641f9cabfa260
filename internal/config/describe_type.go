package config

import (
	"fmt"
	"strings"
)

// Type names the kind of value an option takes, for the configuration
// reference (docs/configuration.md).
func (o Option) Type() string {
	switch v := o.Value.(type) {
	case stringValue:
		return "string"
	case hostPortValue:
		return "host:port"
	case boolValue:
		return "bool"
	case intValue:
		return fmt.Sprintf("whole number in [%d, %d]", v.min, v.max)
	case sizeValue:
		return fmt.Sprintf("size in [%s, %s] (KiB, MiB, GiB suffixes allowed)", formatSize(v.min), formatSize(v.max))
	case floatValue:
		if v.signed {
			return "number"
		}
		return "non-negative number"
	case durationValue:
		return "duration (e.g. 500ms, 5s, 2m)"
	case choiceValue:
		s := ""
		for i, c := range v.choices {
			if i > 0 {
				s += "|"
			}
			s += c
		}
		return s
	case urlValue:
		s := strings.Join(v.schemes, "://, ") + ":// URL"
		if v.allowEmpty {
			s += " or empty"
		}
		return s
	case listValue:
		if v.whole {
			return "list (flag repeatable)"
		}
		return "comma-separated list (flag repeatable)"
	case fileValue:
		return "path of a YAML file"
	case sectionValue:
		return "YAML section"
	case urlPairsValue:
		return "URL=VALUE pairs, comma-separated (flag repeatable; YAML: a list, or a mapping of URL: VALUE)"
	case prefixListValue:
		return "comma-separated IPs/CIDRs"
	}
	return fmt.Sprintf("%T", o.Value)
}
