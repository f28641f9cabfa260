package protocol

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

func BenchmarkHash(b *testing.B) {
	for _, size := range []int{1 << 10, 8 << 10, 1 << 20} {
		doc := bytes.Repeat([]byte("Agora protocol document text. "), size/30+1)[:size]
		b.Run(fmt.Sprintf("%dB", size), func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				if _, err := Hash(doc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkParseDigest(b *testing.B) {
	for name, s := range map[string]string{
		"hex":    "a9993e364706816aba3e25717850c26c9cd0d89d",
		"base64": "qZk+NkcGgWq6PiVxeFDCbJzQ2J0=",
		"bad":    "qZk+NkcGgWq6PiVxeFDCbJzQ2J1=",
	} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				_, _ = ParseDigest(s)
			}
		})
	}
}

func BenchmarkParseMetadata(b *testing.B) {
	sdk := "---\nname: Weather Protocol\ndescription: Query weather forecasts by location and date.\n" +
		"multiround: false\ntags: [weather, forecast]\n---\n\n" + strings.Repeat("Body of the protocol.\n\n", 200)
	fallback := "# Weather Protocol\n\nQuery weather forecasts.\n\n" + strings.Repeat("More text.\n\n", 200)
	large := "---\nname: Big\n---\n\n" + strings.Repeat("x", 1<<20-20)
	for name, doc := range map[string]string{"sdk": sdk, "fallback": fallback, "1MiB": large, "bomb": billionLaughs("tags")} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			for b.Loop() {
				ParseMetadata([]byte(doc))
			}
		})
	}
}
