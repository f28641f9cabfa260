package directory

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

// TestCanonicalJSONVectors are RFC 8785's own examples (§3.2.3, Appendix B).
func TestCanonicalJSONVectors(t *testing.T) {
	in := `{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
		"string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/", "literals": [null, true, false]}`
	want := `{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`
	if got, err := canonicalJSON([]byte(in), ""); err != nil || string(got) != want {
		t.Fatalf("RFC 8785 §3.2.2 example:\n got %s (%v)\nwant %s", got, err, want)
	}
	// Sorting by UTF-16 code units: 😀 (a surrogate pair) sorts before U+FB33.
	in = `{"\u20ac":"Euro Sign","\r":"Carriage Return","\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One",
		"\ud83d\ude00":"Emoji: Grinning Face","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis"}`
	want = "{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u0080\":\"Control\",\"ö\":\"Latin Small Letter O With Diaeresis\"," +
		"\"€\":\"Euro Sign\",\"😀\":\"Emoji: Grinning Face\",\"\ufb33\":\"Hebrew Letter Dalet With Dagesh\"}"
	if got, err := canonicalJSON([]byte(in), ""); err != nil || string(got) != want {
		t.Fatalf("RFC 8785 §3.2.3 sorting:\n got %s (%v)\nwant %s", got, err, want)
	}
	for bits, want := range map[uint64]string{
		0x0000000000000000: "0", 0x8000000000000000: "0", 0x0000000000000001: "5e-324", 0x8000000000000001: "-5e-324",
		0x7fefffffffffffff: "1.7976931348623157e+308", 0xffefffffffffffff: "-1.7976931348623157e+308",
		0x4340000000000000: "9007199254740992", 0xc340000000000000: "-9007199254740992",
		0x4430000000000000: "295147905179352830000", 0x44b52d02c7e14af5: "9.999999999999997e+22",
		0x44b52d02c7e14af6: "1e+23", 0x44b52d02c7e14af7: "1.0000000000000001e+23",
		0x444b1ae4d6e2ef4e: "999999999999999700000", 0x444b1ae4d6e2ef4f: "999999999999999900000", 0x444b1ae4d6e2ef50: "1e+21",
		0x3eb0c6f7a0b5ed8c: "9.999999999999997e-7", 0x3eb0c6f7a0b5ed8d: "0.000001",
		0x41b3de4355555553: "333333333.3333332", 0x41b3de4355555554: "333333333.33333325", 0x41b3de4355555555: "333333333.3333333",
		0x41b3de4355555556: "333333333.3333334", 0x41b3de4355555557: "333333333.33333343",
		0xbecbf647612f3696: "-0.0000033333333333333333", 0x43143ff3c1cb0959: "1424953923781206.2",
	} {
		if got := formatNumber(math.Float64frombits(bits)); got != want {
			t.Errorf("%#016x: got %s, want %s", bits, got, want)
		}
	}
}

func TestCanonicalJSONRefuses(t *testing.T) {
	for name, in := range map[string]string{
		"duplicate names":  `{"a":1,"a":2}`,
		"nested duplicate": `{"a":{"b":1,"b":1}}`,
		"too deep":         `{"a":` + strings.Repeat("[", maxJSONDepth) + strings.Repeat("]", maxJSONDepth) + `}`,
		"too deep objects": strings.Repeat(`{"a":`, maxJSONDepth+1) + "1" + strings.Repeat("}", maxJSONDepth+1),
		"huge number":      `{"a":1e400}`,
		"invalid UTF-8":    "{\"a\":\"\xff\"}",
		"not an object":    `[1]`,
		"trailing data":    `{} {}`,
		"truncated":        `{"a":[1,`,
	} {
		if _, err := canonicalJSON([]byte(in), ""); !errors.Is(err, errJCS) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// The deepest nesting allowed passes.
	ok := `{"a":` + strings.Repeat("[", maxJSONDepth-1) + strings.Repeat("]", maxJSONDepth-1) + `}`
	if _, err := canonicalJSON([]byte(ok), ""); err != nil {
		t.Fatalf("nesting at the limit: %v", err)
	}
	// drop removes the top-level member only.
	got, err := canonicalJSON([]byte(`{"signatures":[1],"b":{"signatures":2}}`), "signatures")
	if err != nil || string(got) != `{"b":{"signatures":2}}` {
		t.Fatalf("drop: %s %v", got, err)
	}
}

// FuzzCanonicalJSON: the canonical form is valid JSON equal to the input
// and a fixed point.
func FuzzCanonicalJSON(f *testing.F) {
	for _, s := range []string{`{"b":[1,2.5e-7,{"c":null}],"a":"\u00e9\n"}`, `{"x":1e21,"y":-0,"z":123456789012345678901234567890}`, `{}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, err := canonicalJSON(raw, "")
		if err != nil {
			return
		}
		var a, b any
		if json.Unmarshal(raw, &a) != nil {
			t.Fatalf("canonicalized invalid JSON %q", raw)
		}
		if err := json.Unmarshal(got, &b); err != nil {
			t.Fatalf("canonical form %q is not JSON: %v", got, err)
		}
		if !reflect.DeepEqual(a, b) { // floats compare with ==: -0 is 0

			t.Fatalf("canonical form changed the value: %s -> %s", raw, got)
		}
		again, err := canonicalJSON(got, "")
		if err != nil || string(again) != string(got) {
			t.Fatalf("not a fixed point: %q -> %q (%v)", got, again, err)
		}
	})
}
