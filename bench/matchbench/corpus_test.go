package matchbench

import (
	"strings"
	"testing"
)

// The corpus keeps what the benchmark promises: many protocols across
// many domains, versions and near-duplicates, and tasks that do not simply
// repeat a title.
func TestCorpusKeepsItsPromises(t *testing.T) {
	ps, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	domains, keys := map[string]bool{}, map[string]bool{}
	for _, p := range ps {
		domains[p.Domain] = true
		if keys[p.Key] {
			t.Errorf("key %s twice", p.Key)
		}
		keys[p.Key] = true
		if len(p.Queries) < 2 || len(p.Queries) > 5 || len(p.Tasks) < 2 {
			t.Errorf("%s: %d queries, %d tasks", p.Key, len(p.Queries), len(p.Tasks))
		}
		for _, task := range p.Tasks {
			if strings.Contains(strings.ToLower(task), strings.ToLower(p.Title)) {
				t.Errorf("%s: the task %q repeats the title", p.Key, task)
			}
		}
	}
	docs, tasks := Corpus(ps, Options{})
	held := 0
	for _, task := range tasks {
		if task.HeldOut {
			held++
		}
	}
	if len(ps) < 60 || len(domains) < 15 || len(tasks) < 150 || held == 0 || held == len(tasks) || len(docs) < len(ps)+len(ps)/2 {
		t.Fatalf("%d protocols in %d domains, %d documents, %d tasks (%d held out)", len(ps), len(domains), len(docs), len(tasks), held)
	}
}
