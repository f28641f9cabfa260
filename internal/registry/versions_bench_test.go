package registry

import (
	"context"
	"fmt"
	"testing"

	"github.com/agora-registry/registry/internal/store"
)

// BenchmarkVersionsUnderManyClaims is one protocol page's lineage read when
// 10,000 documents of another publisher claim to supersede it: the work is
// capped at store.MaxSuccessors rows (docs/SECURITY.md).
func BenchmarkVersionsUnderManyClaims(b *testing.B) {
	svc := newService(&testing.T{}, Config{})
	ctx := context.Background()
	r, err := svc.PublishRequest(ctx, PublishRequest{Content: []byte("# Official\n"), Publisher: "acme"})
	if err != nil {
		b.Fatal(err)
	}
	claims := make([]store.NewDocument, 0, 1000)
	for i := range 10_000 {
		nd, err := PrepareDocument(PublishRequest{Content: []byte(fmt.Sprintf("---\nname: Claim %d\nsupersedes: %s\n---\nx\n", i, r.Entry.Digest.Hex())), Publisher: "mallory"}, 0)
		if err != nil {
			b.Fatal(err)
		}
		if claims = append(claims, nd); len(claims) == cap(claims) {
			if _, err := svc.store.PutMany(ctx, claims); err != nil {
				b.Fatal(err)
			}
			claims = claims[:0]
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		v, err := svc.Versions(ctx, r.Entry)
		if err != nil || len(v.Claims) != store.MaxSuccessors {
			b.Fatalf("%d claims, %v", len(v.Claims), err)
		}
	}
}
