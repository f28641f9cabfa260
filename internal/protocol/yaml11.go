package protocol

import (
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// The Agora Python SDK reads front matter with PyYAML's yaml.safe_load,
// which follows YAML 1.1: yes/no/on/off are booleans, 010 is octal 8 while
// 0o10 is text, 1_000 and 1:30 (sexagesimal, 90) are numbers, 2024-01-01 is
// a date. yaml.v3 parses the text; the rules below give a node the tag and
// value safe_load gives it.

// yaml11Resolvers are PyYAML's implicit resolvers for plain scalars; at
// most one matches a value (null also matches the empty one).
var yaml11Resolvers = []struct {
	tag string
	re  *regexp.Regexp
}{
	{"!!bool", regexp.MustCompile(`^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$`)},
	{"!!float", regexp.MustCompile(`^(?:[-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)},
	{"!!int", regexp.MustCompile(`^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$`)},
	{"!!null", regexp.MustCompile(`^(?:~|null|Null|NULL|)$`)},
	{"!!timestamp", regexp.MustCompile(`^(?:[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)$`)},
	{"!!merge", regexp.MustCompile(`^<<$`)},
	{"!!value", regexp.MustCompile(`^=$`)},
}

// yaml11Tag is the tag safe_load gives a node: its explicit tag, or the one
// the YAML 1.1 resolvers find for a plain scalar.
func yaml11Tag(n *yaml.Node) string {
	n = resolveAlias(n)
	switch {
	case n.Style&yaml.TaggedStyle != 0: // yaml.v3 leaves the non-specific "!" untagged, as PyYAML does
		return n.Tag
	case n.Kind == yaml.MappingNode:
		return "!!map"
	case n.Kind == yaml.SequenceNode:
		return "!!seq"
	case n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		return "!!str"
	}
	if n.Value != "" && !strings.ContainsRune("yYnNtTfFoO~-+.0123456789<=", rune(n.Value[0])) {
		return "!!str" // no resolver matches: skip their regular expressions
	}
	for _, r := range yaml11Resolvers {
		if r.re.MatchString(n.Value) {
			return r.tag
		}
	}
	return "!!str"
}

// safeTags are the tags safe_load constructs, with the word lints use for
// the value and the kind of node each needs.
var safeTags = map[string]struct {
	kind string
	node yaml.Kind
}{
	"!!str": {"text", yaml.ScalarNode}, "!!null": {"null", yaml.ScalarNode}, "!!bool": {"boolean", yaml.ScalarNode},
	"!!int": {"number", yaml.ScalarNode}, "!!float": {"number", yaml.ScalarNode}, "!!timestamp": {"date", yaml.ScalarNode},
	"!!binary": {"binary data", yaml.ScalarNode}, "!!seq": {"list", yaml.SequenceNode}, "!!omap": {"list", yaml.SequenceNode},
	"!!pairs": {"list", yaml.SequenceNode}, "!!map": {"mapping", yaml.MappingNode}, "!!set": {"set", yaml.MappingNode},
}

// yaml11Value is a node as safe_load constructs it: the kind of value in a
// lint's words ("text", "number", "boolean", "null", "date", "list", ...),
// the value as text (numbers in decimal, booleans true or false, others as
// written; "" for collections), and whether Python counts it as true.
// problem says, when not "", why safe_load cannot construct it.
func yaml11Value(n *yaml.Node) (kind, text string, truthy bool, problem string) {
	n = resolveAlias(n)
	tag := yaml11Tag(n)
	safe, ok := safeTags[tag]
	switch {
	case !ok:
		return "", "", false, "the tag " + tag + " is one the SDK's YAML loader (yaml.safe_load) does not know"
	case n.Kind != safe.node:
		return "", "", false, "the tag " + tag + " is on the wrong kind of value"
	case n.Kind != yaml.ScalarNode:
		return safe.kind, "", len(n.Content) > 0, ""
	}
	text, truthy, ok = yaml11Scalar(tag, n.Value)
	switch {
	case !ok && n.Style&yaml.TaggedStyle != 0:
		return "", "", false, fmt.Sprintf("%s %q is not a valid %s", tag, n.Value, safe.kind)
	case !ok:
		return "", "", false, fmt.Sprintf("%q reads as %s but is not a valid one: quote it to keep it text", n.Value, a(safe.kind))
	}
	return safe.kind, text, truthy, ""
}

// a puts "a" or "an" before a word.
func a(word string) string {
	if strings.IndexByte("aeiou", word[0]) >= 0 {
		return "an " + word
	}
	return "a " + word
}

// yaml11Scalar constructs a scalar with tag as safe_load does: its value as
// text, its truthiness, and ok false when Python would fail to build it
// (an explicit "!!int zero", an impossible date such as 2024-02-30).
func yaml11Scalar(tag, value string) (text string, truthy, ok bool) {
	switch tag {
	case "!!null":
		return "null", false, true
	case "!!bool":
		b, ok := map[string]bool{"yes": true, "no": false, "true": true, "false": false, "on": true, "off": false}[strings.ToLower(value)]
		return strconv.FormatBool(b), b, ok
	case "!!int":
		return yaml11Int(value)
	case "!!float":
		truthy, ok := yaml11FloatTruth(value)
		return value, truthy, ok
	case "!!timestamp":
		return value, true, yaml11DateExists(value)
	case "!!binary":
		return value, strings.Trim(value, "= \n") != "", true
	}
	return value, value != "", true
}

// yaml11Int follows construct_yaml_int: underscores dropped, then 0b
// binary, 0x hexadecimal, a leading 0 octal (int(s, 8), which also reads
// 0o7), a:b:c base 60, else decimal, which Python refuses past 4300
// digits. The text is the value in decimal, or as written when it is too
// long for that to be worth the work (a lint shows 80 characters).
func yaml11Int(value string) (text string, truthy, ok bool) {
	s := strings.ReplaceAll(value, "_", "")
	neg := strings.HasPrefix(s, "-")
	if neg || strings.HasPrefix(s, "+") {
		s = s[1:]
	}
	base, parts := 10, []string{s}
	switch {
	case strings.HasPrefix(s, "0b"):
		base, parts = 2, []string{s[2:]}
	case strings.HasPrefix(s, "0x"):
		base, parts = 16, []string{s[2:]}
	case s != "0" && strings.HasPrefix(s, "0"):
		base = 8
		if len(s) > 2 && (s[1] == 'o' || s[1] == 'O') {
			parts = []string{s[2:]}
		}
	case strings.Contains(s, ":"):
		parts = strings.Split(s, ":")
	}
	const maxDecimalDigits = 4300 // CPython's int_max_str_digits
	n := new(big.Int)
	for _, part := range parts {
		if base == 10 && len(part) > maxDecimalDigits {
			return "", false, false
		}
		digit, ok := new(big.Int).SetString(part, base)
		if !ok {
			return "", false, false
		}
		truthy = truthy || digit.Sign() != 0
		if text == "" {
			if n.Mul(n, big.NewInt(60)).Add(n, digit); n.BitLen() > 256 {
				text = value
			}
		}
	}
	if text != "" {
		return text, truthy, true
	}
	if neg {
		n.Neg(n)
	}
	return n.String(), truthy, true
}

// yaml11FloatTruth follows construct_yaml_float: whether the number is not
// zero (NaN is not), and whether Python's float() reads it.
func yaml11FloatTruth(value string) (truthy, ok bool) {
	s := strings.TrimLeft(strings.ToLower(strings.ReplaceAll(value, "_", "")), "+-")
	if s == ".inf" || s == ".nan" {
		return true, true
	}
	for _, part := range strings.Split(s, ":") {
		part = strings.TrimSpace(part)
		if part == "" || strings.Contains(part, "x") { // Go reads hex floats; Python does not
			return false, false
		}
		f, err := strconv.ParseFloat(part, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return false, false
		}
		truthy = truthy || f != 0
	}
	return truthy, true
}

var yaml11Timestamp = regexp.MustCompile(`^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:(?:[Tt]|[ \t]+)([0-9]{1,2}):([0-9]{2}):([0-9]{2})(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+]([0-9]{1,2})(?::([0-9]{2}))?))?)?$`)

// yaml11DateExists reports whether Python's datetime accepts the date,
// time and time zone offset a timestamp names.
func yaml11DateExists(value string) bool {
	m := yaml11Timestamp.FindStringSubmatch(value)
	if m == nil {
		return false
	}
	num := func(s string) int { n, _ := strconv.Atoi(s); return n }
	year, month, day := num(m[1]), num(m[2]), num(m[3])
	t := time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC)
	ok := year >= 1 && t.Year() == year && t.Month() == time.Month(month) && t.Day() == day
	if m[4] != "" {
		ok = ok && num(m[4]) < 24 && num(m[5]) < 60 && num(m[6]) < 60 && num(m[7])*60+num(m[8]) < 24*60
	}
	return ok
}
