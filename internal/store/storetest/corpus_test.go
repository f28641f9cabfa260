package storetest

import (
	"bytes"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/protocol"
)

func TestGenerateDocument(t *testing.T) {
	const n = 2000
	seen := map[protocol.Digest]int{}
	common, rare, tagged := 0, 0, 0
	for i := range n {
		doc := GenerateDocument(i)
		if !bytes.Equal(doc, GenerateDocument(i)) {
			t.Fatalf("document %d is not deterministic", i)
		}
		if len(doc) < 1024 || len(doc) > 9*1024 {
			t.Fatalf("document %d is %d bytes, want about 1 to 8 KiB", i, len(doc))
		}
		p, err := protocol.Prepare(doc, 0)
		if err != nil {
			t.Fatalf("document %d: %v", i, err)
		}
		if !p.Metadata.FrontMatter || p.Metadata.Title == "" || p.Metadata.Description == "" || len(p.Metadata.Tags) == 0 {
			t.Fatalf("document %d lacks metadata: %+v", i, p.Metadata)
		}
		if j, dup := seen[p.Sums.SHA1]; dup {
			t.Fatalf("documents %d and %d are equal", j, i)
		}
		seen[p.Sums.SHA1] = i
		if strings.Contains(string(doc), " "+CommonWord+" ") {
			common++
		}
		if strings.Contains(string(doc), " "+RareWord+" ") {
			rare++
		}
		for _, tag := range p.Metadata.Tags {
			if tag == CommonTag {
				tagged++
			}
		}
	}
	if common < n/5 || common > n/3 || rare < 1 || rare > n/200 || tagged < n/10 || tagged > n/4 {
		t.Fatalf("selectivity off: common word in %d, rare word in %d, common tag on %d of %d", common, rare, tagged, n)
	}
}
