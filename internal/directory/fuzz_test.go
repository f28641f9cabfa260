package directory

import (
	"testing"
)

// FuzzParseWellKnown: whatever an agent answers, parsing never panics and
// what it keeps fits the store's limits.
func FuzzParseWellKnown(f *testing.F) {
	for _, seed := range []string{
		`{"supported": {"` + "0123456789abcdef0123456789abcdef01234567" + `": ["https://a"]}, "name": "n", "kinds": ["k"]}`,
		`{"0123456789abcdef0123456789abcdef01234567": ["s"], "_unsupported": ["ASNFZ4mrze8BI0VniavN7wEjRWc="], "_meta": {"name": "x"}}`,
		`{"_meta": 5, "_unsupported": {}, "x": null}`, `[]`, `null`, `{"supported": []}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, wk := range wellKnownPaths {
			c, err := wk.parse(raw)
			if err != nil {
				continue
			}
			if err := c.Check(); err != nil {
				t.Fatalf("%s kept what the store refuses: %v", wk.path, err)
			}
		}
	})
}
