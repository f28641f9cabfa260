package render

import "testing"

// BenchmarkCostlyMarkdown is the cost of each input goldmark handles worst,
// at 64 KiB (the padded table is its 6 KB self), within the budget; the bound it checks is in
// docs/SECURITY.md ("Rendering"). Run it with:
//
//	go test -run '^$' -bench CostlyMarkdown -benchmem -benchtime 20x ./internal/render
func BenchmarkCostlyMarkdown(b *testing.B) {
	r := New()
	for _, c := range append(costlyMarkdown, amplifyingMarkdown...) {
		src := []byte(c.gen(64 << 10))
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := r.Markdown(src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
