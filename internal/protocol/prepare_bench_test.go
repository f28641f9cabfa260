package protocol_test

import (
	"testing"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store/storetest"
)

// BenchmarkPrepare is the document half of a publish (validate, hash with
// collision detection and SHA-256, read the front matter) over the
// benchmark corpus (1–8 KB Markdown with front matter):
//
//	go test -run '^$' -bench Prepare -benchmem -cpuprofile cpu.out ./internal/protocol
func BenchmarkPrepare(b *testing.B) {
	docs := make([][]byte, 256)
	size := 0
	for i := range docs {
		docs[i] = storetest.GenerateDocument(i)
		size += len(docs[i])
	}
	b.SetBytes(int64(size / len(docs)))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := protocol.Prepare(docs[i%len(docs)], 0); err != nil {
			b.Fatal(err)
		}
	}
}
