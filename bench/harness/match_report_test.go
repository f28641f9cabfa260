package harness

import (
	"strings"
	"testing"
)

func TestRenderMatch(t *testing.T) {
	got, err := renderMatch([]byte(`[{"engine":"sqlite","documents":100000,"ranking":"deterministic","representativeQueries":true,
		"dev":{"tasks":132,"top1":0.5,"top3":0.75,"reach":0.8,"p50Ms":1.5,"p95Ms":9,"cpuP95Ms":4.25},
		"heldOut":{"tasks":66,"top1":0.4,"top3":0.7,"reach":0.9,"p50Ms":1,"p95Ms":8,"cpuP95Ms":4.5}}]`))
	if err != nil {
		t.Fatal(err)
	}
	if want := "| SQLite | 100,000 | deterministic | yes | 0.50 / 0.75 / 0.80 | 0.40 / 0.70 / 0.90 | 1.5 / 9.0 ms | 4.5 ms |"; !strings.Contains(string(got), want) {
		t.Fatalf("table:\n%s\nwant the row %s", got, want)
	}
}
