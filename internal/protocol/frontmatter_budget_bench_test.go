package protocol

import (
	"fmt"
	"strings"
	"testing"
)

// flowListDocument is the worst front matter found per byte: a YAML flow
// list of one-letter items, each a node of its own.
func flowListDocument(frontMatterBytes int) []byte {
	items := strings.Repeat("a,", frontMatterBytes/2)
	return []byte("---\nname: Flow\ntags: [" + items + "a]\n---\n# Flow\n")
}

// BenchmarkPrepareHostileFrontMatter is the publish cost of the largest
// front matter a document may carry (and of a 1 MiB one, refused by size).
// The bound it checks is in docs/SECURITY.md ("Publishing and input
// bounds"). Run it with:
//
//	go test -run '^$' -bench PrepareHostileFrontMatter -benchmem ./internal/protocol
func BenchmarkPrepareHostileFrontMatter(b *testing.B) {
	for _, size := range []int{60 << 10, 1 << 20} {
		doc := flowListDocument(size)
		b.Run(fmt.Sprintf("flow-list-%dKiB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			b.ReportAllocs()
			for b.Loop() {
				_, _ = Prepare(doc, 2<<20)
			}
		})
	}
}
