package directory

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// maxJSONDepth bounds the nesting canonicalJSON accepts: a card is a few
// levels deep, and the bound keeps a hostile one from costing stack.
const maxJSONDepth = 32

var errJCS = errors.New("the card is not I-JSON (RFC 8785 canonicalization refused it)")

// canonicalJSON is the RFC 8785 (JCS) canonical form of the JSON object
// raw, without its top-level member named drop. It refuses what JCS
// cannot canonicalize (invalid UTF-8, duplicate member names, numbers
// outside IEEE 754 doubles) and nesting deeper than maxJSONDepth. Its
// work is linear in len(raw) but for sorting member names.
func canonicalJSON(raw []byte, drop string) ([]byte, error) {
	if !utf8.Valid(raw) {
		return nil, errJCS
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, errJCS
	}
	var out bytes.Buffer
	if err := canonObject(dec, &out, 1, drop); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errJCS // trailing data
	}
	return out.Bytes(), nil
}

type member struct {
	key  []uint16 // the name in UTF-16 code units, the order of RFC 8785 §3.2.3
	text []byte   // the member's canonical "key":value
}

// canonObject writes the object whose '{' dec just read.
func canonObject(dec *json.Decoder, out *bytes.Buffer, depth int, drop string) error {
	if depth > maxJSONDepth {
		return fmt.Errorf("%w: nested deeper than %d levels", errJCS, maxJSONDepth)
	}
	var members []member
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return errJCS
		}
		key := tok.(string) // the decoder only yields strings here
		if seen[key] {
			return fmt.Errorf("%w: a member name appears twice", errJCS)
		}
		seen[key] = true
		var m bytes.Buffer
		writeString(&m, key)
		m.WriteByte(':')
		if err := canonValue(dec, &m, depth); err != nil {
			return err
		}
		if drop == "" || key != drop { // "" drops nothing: a member may be named ""
			members = append(members, member{utf16.Encode([]rune(key)), m.Bytes()})
		}
	}
	if _, err := dec.Token(); err != nil { // '}'
		return errJCS
	}
	// RFC 8785 §3.2.3: member names sort by their UTF-16 code units.
	slices.SortFunc(members, func(a, b member) int { return slices.Compare(a.key, b.key) })
	out.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			out.WriteByte(',')
		}
		out.Write(m.text)
	}
	out.WriteByte('}')
	return nil
}

func canonValue(dec *json.Decoder, out *bytes.Buffer, depth int) error {
	tok, err := dec.Token()
	if err != nil {
		return errJCS
	}
	switch v := tok.(type) {
	case json.Delim:
		if v == '{' {
			return canonObject(dec, out, depth+1, "")
		}
		if depth+1 > maxJSONDepth {
			return fmt.Errorf("%w: nested deeper than %d levels", errJCS, maxJSONDepth)
		}
		out.WriteByte('[')
		for i := 0; dec.More(); i++ {
			if i > 0 {
				out.WriteByte(',')
			}
			if err := canonValue(dec, out, depth+1); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil { // ']'
			return errJCS
		}
		out.WriteByte(']')
	case string:
		writeString(out, v)
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil || math.IsInf(f, 0) {
			return fmt.Errorf("%w: a number is outside IEEE 754 doubles", errJCS)
		}
		out.WriteString(formatNumber(f))
	case bool:
		out.WriteString(strconv.FormatBool(v))
	case nil:
		out.WriteString("null")
	}
	return nil
}

// writeString writes s as RFC 8785 §3.2.2.2 does: only '"', '\\' and
// control characters escaped, these as \b \t \n \f \r or \u00xx.
func writeString(out *bytes.Buffer, s string) {
	out.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			out.WriteByte('\\')
			out.WriteRune(r)
		case r == '\b':
			out.WriteString(`\b`)
		case r == '\t':
			out.WriteString(`\t`)
		case r == '\n':
			out.WriteString(`\n`)
		case r == '\f':
			out.WriteString(`\f`)
		case r == '\r':
			out.WriteString(`\r`)
		case r < 0x20:
			fmt.Fprintf(out, `\u%04x`, r)
		default:
			out.WriteRune(r)
		}
	}
	out.WriteByte('"')
}

// formatNumber spells f as ECMAScript's Number.prototype.toString does
// (RFC 8785 §3.2.2.3): the shortest digits that round-trip, plain
// notation for exponents -7 < n <= 21, else d.ddde±n.
func formatNumber(f float64) string {
	if f == 0 {
		return "0" // -0 too
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	// Go's shortest round-trip digits are ECMAScript's.
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±xx
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	k, n := len(digits), x+1 // value = 0.digits × 10^n
	switch {
	case k <= n && n <= 21:
		return sign + digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return sign + digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return sign + "0." + strings.Repeat("0", -n) + digits
	}
	es := "+"
	if n-1 < 0 {
		es = "-"
	}
	m := digits[:1]
	if k > 1 {
		m += "." + digits[1:]
	}
	return sign + m + "e" + es + strconv.Itoa(abs(n-1))
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
