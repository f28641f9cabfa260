package api

import (
	"bytes"
	"fmt"

	"github.com/agora-registry/registry/internal/apperr"
)

// errLoneSurrogate refuses a JSON string escape that names half of a UTF-16
// surrogate pair: encoding/json would store it as U+FFFD, so the stored
// text (and a document's hash) would differ from what the client sent.
var errLoneSurrogate = apperr.New(apperr.Invalid, "lone_surrogate",
	"the JSON holds an unpaired UTF-16 surrogate escape, which names no character")

// findLoneSurrogate returns the offset of the first \uD800–\uDFFF escape of
// body that is not a high surrogate directly followed by a low one, or -1.
// It only looks at backslash escapes: inside JSON strings those are all
// escapes, and outside them a backslash is a syntax error the decoder
// refuses anyway. One pass, no allocation.
func findLoneSurrogate(body []byte) int {
	for i := 0; i < len(body); {
		j := bytes.IndexByte(body[i:], '\\')
		if j < 0 {
			return -1
		}
		i += j
		r, ok := unicodeEscape(body, i)
		switch {
		case !ok:
			i += 2 // \" \\ \n …: the escaped byte is never a backslash that starts an escape
		case r < 0xD800 || r > 0xDFFF:
			i += 6
		case r <= 0xDBFF:
			if low, ok := unicodeEscape(body, i+6); ok && low >= 0xDC00 && low <= 0xDFFF {
				i += 12
				continue
			}
			return i
		default:
			return i // a low surrogate with no high one before it
		}
	}
	return -1 // a backslash ended the body (the decoder refuses it)
}

// unicodeEscape reads a \uXXXX escape at body[i:].
func unicodeEscape(body []byte, i int) (rune, bool) {
	if i+6 > len(body) || body[i] != '\\' || body[i+1] != 'u' {
		return 0, false
	}
	var r rune
	for _, c := range body[i+2 : i+6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// checkSurrogates is the error for a body with a lone surrogate escape.
func checkSurrogates(body []byte) error {
	if at := findLoneSurrogate(body); at >= 0 {
		return errLoneSurrogate.With(fmt.Sprintf(
			"the JSON holds an unpaired UTF-16 surrogate escape %s at byte %d; it names no character, and storing it as U+FFFD would change the text (and its hash)",
			body[at:at+6], at))
	}
	return nil
}
