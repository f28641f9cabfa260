package config

import "fmt"

// Type names the kind of value an option takes, for the configuration
// reference (docs/configuration.md).
func (o Option) Type() string {
	switch v := o.value.(type) {
	case stringValue:
		return "string"
	case boolValue:
		return "bool"
	case intValue:
		return fmt.Sprintf("integer in [%d, %d] (KiB, MiB, GiB suffixes allowed)", v.min, v.max)
	case floatValue:
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
	case listValue:
		return "comma-separated list"
	case prefixListValue:
		return "comma-separated IPs/CIDRs"
	}
	return fmt.Sprintf("%T", o.value)
}
