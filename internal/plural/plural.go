// Package plural writes a count with its noun ("1 protocol", "2
// protocols"): the one helper every message and page uses, so none says
// "1 protocols".
package plural

import "strconv"

// Number is what counts come as.
type Number interface{ ~int | ~int64 }

// Count is n followed by one or many, as n asks.
func Count[N Number](n N, one, many string) string {
	word := many
	if n == 1 || n == -1 {
		word = one
	}
	return strconv.FormatInt(int64(n), 10) + " " + word
}

// Of is Count for a noun whose plural adds "s".
func Of[N Number](n N, noun string) string { return Count(n, noun, noun+"s") }
