package api

import (
	"encoding/base64"
	"encoding/hex"
	"unicode/utf8"

	"github.com/agora-registry/registry/internal/protocol"
)

// Small JSON writers for the streamed responses. They produce what
// encoding/json produces with SetEscapeHTML(false): control characters,
// '"' and '\' escaped, invalid UTF-8 as U+FFFD, U+2028/U+2029 escaped (so
// the output is also valid JavaScript).

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string, quotes included.
func appendJSONString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			buf = append(buf, s[start:i]...)
			switch b {
			case '"', '\\':
				buf = append(buf, '\\', b)
			case '\n':
				buf = append(buf, '\\', 'n')
			case '\r':
				buf = append(buf, '\\', 'r')
			case '\t':
				buf = append(buf, '\\', 't')
			default:
				buf = append(buf, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf = append(buf, s[start:i]...)
			buf = append(buf, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			buf = append(buf, s[start:i]...)
			buf = append(buf, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}

// appendJSONEscapedInPlace re-escapes buf[start:] as the inside of a JSON
// string (for text appended raw, such as a URL built from configuration).
func appendJSONEscapedInPlace(buf []byte, start int) []byte {
	raw := buf[start:]
	clean := true
	for _, b := range raw {
		if b < 0x20 || b == '"' || b == '\\' || b >= utf8.RuneSelf {
			clean = false
			break
		}
	}
	if clean {
		return buf
	}
	s := string(raw)
	buf = appendJSONString(buf[:start], s)
	// drop the quotes appendJSONString adds: the caller writes its own
	copy(buf[start:], buf[start+1:len(buf)-1])
	return buf[:len(buf)-2]
}

func hexAppend(buf []byte, d protocol.Digest) []byte { return hex.AppendEncode(buf, d[:]) }

func base64Append(buf []byte, d protocol.Digest) []byte {
	return base64.StdEncoding.AppendEncode(buf, d[:])
}
