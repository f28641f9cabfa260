package store

import (
	"fmt"
	"strings"
)

// NaturalKey is the name sort's key of a title: lower-cased, each run of
// ASCII digits written as its length in three digits and then the digits
// without leading zeros, so that "v9" sorts before "v10" byte by byte
// ("v0019" < "v00210"). A title has at most protocol.MaxTitleRunes
// characters, so three digits hold any run. PostgreSQL computes the same
// key in SQL (natural_key, migration 000028); SQLite stores this one.
func NaturalKey(title string) string { return NaturalKeyOfLower(strings.ToLower(title)) }

// NaturalKeyOfLower is NaturalKey of a title already lower-cased, by the
// database's lower() for one: PostgreSQL's natural_key of the same title.
func NaturalKeyOfLower(lower string) string {
	var b strings.Builder
	b.Grow(len(lower) + 8)
	for i := 0; i < len(lower); {
		if !isDigit(lower[i]) {
			b.WriteByte(lower[i])
			i++
			continue
		}
		j := i
		for j < len(lower) && isDigit(lower[j]) {
			j++
		}
		run := strings.TrimLeft(lower[i:j], "0")
		if run == "" {
			run = "0"
		}
		fmt.Fprintf(&b, "%03d%s", len(run), run)
		i = j
	}
	return b.String()
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
