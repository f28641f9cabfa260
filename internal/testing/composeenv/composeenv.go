// Package composeenv expands docker-compose.yml's variable references in
// tests, as compose does: ${NAME:-default} (defaults may nest), ${NAME:?msg}
// and ${NAME}.
package composeenv

import "strings"

// Interpolate replaces every reference in s, innermost first, with env's
// value or, when that is empty, the default.
func Interpolate(s string, env map[string]string) string {
	for {
		start := strings.LastIndex(s, "${")
		if start < 0 {
			return s
		}
		end := strings.Index(s[start:], "}")
		if end < 0 {
			return s
		}
		name, def, _ := strings.Cut(s[start+2:start+end], ":-")
		name, _, _ = strings.Cut(name, ":?")
		v := env[name]
		if v == "" {
			v = def
		}
		s = s[:start] + v + s[start+end+1:]
	}
}
