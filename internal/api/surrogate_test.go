package api

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestFindLoneSurrogate(t *testing.T) {
	for body, want := range map[string]int{
		`{"protocol":"plain"}`:                 -1,
		`{"protocol":"\ud83d\ude00 emoji"}`:    -1, // a pair: one character
		`{"protocol":"\uD83D\uDE00"}`:          -1,
		`{"protocol":"caf\u00e9 \n \" \\"}`:    -1,
		`{"protocol":"\\ud800"}`:               -1, // an escaped backslash, then text
		`{"protocol":"\\\ud800"}`:              15,
		`{"protocol":"\ud800"}`:                13,
		`{"protocol":"x\udc00"}`:               14, // low half alone
		`{"protocol":"\ud800\ud800"}`:          13, // two high halves
		`{"protocol":"\ud800\u0041"}`:          13,
		`{"protocol":"\ud800"`:                 13,
		`{"protocol":"\ude00\ud83d"}`:          13, // halves in the wrong order
		`{"protocol":"\ud83d\ude00\udfff"}`:    25,
		`{"protocol":"\ud83d\`:                 13,
		`{"name":"\ud800","protocol":"ok"}`:    9,
		`{"hashes":["a9993e364706816aba3e2"]}`: -1,
		`\`:                                    -1, // a body ending in a backslash (found by fuzzing: it panicked)
		`{"protocol":"\`:                       -1,
	} {
		if got := findLoneSurrogate([]byte(body)); got != want {
			t.Errorf("findLoneSurrogate(%s) = %d, want %d", body, got, want)
		}
	}
}

// FuzzFindLoneSurrogate: a JSON string the scan passes decodes without
// encoding/json inventing a U+FFFD, and one it flags decodes with one.
func FuzzFindLoneSurrogate(f *testing.F) {
	f.Add(`"\ud83d\ude00"`)
	f.Add(`"\ud800"`)
	f.Add(`"\\ud800\u00e9"`)
	f.Fuzz(func(t *testing.T, body string) {
		var s string
		if !utf8.ValidString(body) || strings.ContainsRune(body, utf8.RuneError) ||
			strings.Contains(strings.ToLower(body), `\ufffd`) || json.Unmarshal([]byte(body), &s) != nil {
			return
		}
		lone := findLoneSurrogate([]byte(body)) >= 0
		if invented := strings.ContainsRune(s, utf8.RuneError); lone != invented {
			t.Fatalf("%s: scan says lone=%v, decoder produced U+FFFD=%v", body, lone, invented)
		}
	})
}
