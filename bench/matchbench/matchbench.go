// Package matchbench is the public benchmark of the task match
// (POST /api/v1/match): protocols across many domains, written as data in
// testdata/protocols.json with the tasks users would phrase for each, plus
// versions generated from them (a deprecated one with its replacement, a
// superseded one, a near-duplicate by another publisher). It reports top-1
// and top-3 accuracy and latency, on the corpus alone and padded with
// generated distractors (storetest.GenerateDocument).
//
//	cd bench && go run ./cmd/matchbench              # SQLite, 100,000 documents
//	cd bench && go run ./cmd/matchbench -engines sqlite,postgres -write ../docs/benchmarks/match.json
//
// The last task of each protocol is held out: ranking was tuned on the
// others (dev) and the report shows both.
//
// A right answer is what a user should adopt for the task: the protocol's
// current version, or its near-duplicate by another publisher (the same
// text under another title, as active, so nothing tells them apart and
// either is right). An older version, deprecated or superseded, is wrong:
// the match must lead to its replacement. Beside top-1 and top-3 the
// report gives reach, the share of tasks whose right answer is anywhere in
// the longest answer (registry.MaxMatchLimit): the ceiling of any
// re-ranking of those candidates. The tasks avoid the protocols' words on
// purpose; about half share no word, stemmed, with their right protocol,
// so no ranking by words reaches them.
package matchbench

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	storebench "github.com/agora-registry/registry/bench/store"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/storetest"
)

//go:embed testdata/protocols.json
var protocolsJSON []byte

// Protocol is one task family of the benchmark: its document's metadata,
// and tasks in users' words that it is the right answer to.
type Protocol struct {
	Key         string   `json:"key"`
	Domain      string   `json:"domain"`
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Tags        []string `json:"tags"`
	Queries     []string `json:"queries"`
	Headings    []string `json:"headings"`
	Tasks       []string `json:"tasks"`
}

// Load reads the benchmark's protocols.
func Load() ([]Protocol, error) {
	var ps []Protocol
	if err := json.Unmarshal(protocolsJSON, &ps); err != nil {
		return nil, err
	}
	return ps, nil
}

// Task is one benchmark question: the task and the keys of the documents
// that answer it right (a protocol and its near-duplicate).
type Task struct {
	Text    string
	Right   []string
	HeldOut bool
}

// doc is one document of the corpus and what happens to it once stored.
type doc struct {
	key, publisher string
	content        string
	deprecatedBy   string // key of the replacement to name when deprecating
}

// Options shape a corpus.
type Options struct {
	// NoQueries leaves representativeQueries out of every document (the
	// figure without them).
	NoQueries bool
}

// Corpus is the benchmark's documents, in publishing order, and its tasks.
// For every third protocol an older version is deprecated in favour of
// it; for every third after that an older version is superseded by it;
// every fourth has a near-duplicate by another publisher (its title and
// version differ), which answers its tasks as rightly.
func Corpus(ps []Protocol, o Options) ([]doc, []Task) {
	var docs []doc
	var tasks []Task
	for i, p := range ps {
		right := []string{p.Key}
		queries := p.Queries
		if o.NoQueries {
			queries = nil
		}
		var supersedes string
		switch i % 3 {
		case 0:
			docs = append(docs, doc{key: p.Key + "@old", publisher: "acme", deprecatedBy: p.Key,
				content: render(p.Title, "Legacy version. "+p.Description, "1.0", p.Tags, queries, p.Headings, "")})
		case 1:
			old := render(p.Title, p.Description+" First version.", "1.0", p.Tags, queries, p.Headings[:1], "")
			docs = append(docs, doc{key: p.Key + "@old", publisher: "acme", content: old})
			sums, err := protocol.Hash([]byte(old))
			if err != nil {
				panic(err) // the template always renders a valid document
			}
			supersedes = sums.SHA1.Hex()
		}
		docs = append(docs, doc{key: p.Key, publisher: "acme", content: render(p.Title, p.Description, "2.0", p.Tags, queries, p.Headings, supersedes)})
		if i%4 == 0 {
			alt := p.Key + "@alt"
			docs = append(docs, doc{key: alt, publisher: "other",
				content: render(p.Title+" Service", p.Description, "0.9", p.Tags, queries, p.Headings, "")})
			right = append(right, alt)
		}
		for j, t := range p.Tasks {
			tasks = append(tasks, Task{Text: t, Right: right, HeldOut: j == len(p.Tasks)-1})
		}
	}
	return docs, tasks
}

func render(title, description, version string, tags, queries, headings []string, supersedes string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "---\nname: %s\ndescription: %s\nversion: '%s'\ntags: [%s]\n", title, description, version, strings.Join(tags, ", "))
	if len(queries) > 0 {
		b.WriteString("representativeQueries:\n")
		for _, q := range queries {
			fmt.Fprintf(&b, "  - %q\n", q)
		}
	}
	if supersedes != "" {
		fmt.Fprintf(&b, "supersedes: %s\n", supersedes)
	}
	fmt.Fprintf(&b, "---\n\n# %s\n\n%s\n", title, description)
	for _, h := range headings {
		fmt.Fprintf(&b, "\n## %s\n\nThe sender gives the %s as a JSON field of the request.\n", h, strings.ToLower(h))
	}
	return b.String()
}

// Publish stores the corpus through st and returns each key's digest.
func Publish(ctx context.Context, st store.Store, docs []doc) (map[protocol.Digest]string, error) {
	keys := map[protocol.Digest]string{}
	byKey := map[string]protocol.Digest{}
	for _, d := range docs {
		pd, err := protocol.Prepare([]byte(d.content), 0)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d.key, err)
		}
		if _, err := st.CreatePublisher(ctx, entity.Publisher{Name: d.publisher}); err != nil && !errors.Is(err, store.ErrPublisherTaken) {
			return nil, err
		}
		e, _, err := st.Put(ctx, store.NewDocument{Document: pd, Publisher: d.publisher})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d.key, err)
		}
		keys[e.Digest], byKey[d.key] = d.key, e.Digest
	}
	for _, d := range docs {
		if d.deprecatedBy == "" {
			continue
		}
		to := byKey[d.deprecatedBy]
		if _, err := st.SetStatus(ctx, byKey[d.key], store.StatusChange{Status: entity.StatusDeprecated,
			Message: "use the new version", Replacement: &to, Actor: d.publisher}); err != nil {
			return nil, fmt.Errorf("deprecating %s: %w", d.key, err)
		}
	}
	return keys, nil
}

// Pad stores n generated distractor documents (deterministic).
func Pad(ctx context.Context, st store.Store, n int) error {
	for start := 0; start < n; start += 1000 {
		batch := make([]store.NewDocument, 0, 1000)
		for i := start; i < min(n, start+1000); i++ {
			d, err := protocol.Prepare(storetest.GenerateDocument(i), 0)
			if err != nil {
				return err
			}
			batch = append(batch, store.NewDocument{Document: d})
		}
		if _, err := st.PutMany(ctx, batch); err != nil {
			return err
		}
	}
	return nil
}

// Score is one row of the report: accuracy over a task set and latency.
type Score struct {
	Tasks int     `json:"tasks"`
	Top1  float64 `json:"top1"`
	Top3  float64 `json:"top3"`
	// Reach is the share whose right protocol is anywhere in the longest
	// answer a request may ask for (registry.MaxMatchLimit matches): no
	// re-ranking of those candidates, a model's included, does better.
	Reach     float64 `json:"reach"`
	P50Millis float64 `json:"p50Ms"`
	P95Millis float64 `json:"p95Ms"`
	// CPU time of the process per match (user + system): on a shared
	// machine wall time mostly measures the neighbours.
	CPUP50Millis float64 `json:"cpuP50Ms"`
	CPUP95Millis float64 `json:"cpuP95Ms"`
}

// Row is one configuration measured.
type Row struct {
	Engine    string `json:"engine"`
	Documents int    `json:"documents"`
	Ranking   string `json:"ranking"` // deterministic, or llm
	Queries   bool   `json:"representativeQueries"`
	Dev       Score  `json:"dev"`
	HeldOut   Score  `json:"heldOut"`
}

// Ranker answers a task: registry.Service.MatchRanked.
type Ranker func(ctx context.Context, r registry.MatchRequest) (registry.MatchResult, error)

// Run asks every task twice (the first round warms caches) and scores the
// second round. Each asks for the longest answer (registry.MaxMatchLimit):
// its first three are the answer to a request for three, since the work
// and the order do not depend on the limit. miss, when set, is told each
// task whose right answer was not first: the first three it got and where
// the right one was (-1: not in the answer).
func Run(ctx context.Context, rank Ranker, keys map[protocol.Digest]string, tasks []Task, miss func(t Task, got []string, at int)) (dev, held Score, err error) {
	type res struct {
		top1, top3, reach bool
		took, cpu         time.Duration
	}
	var devRes, heldRes []res
	for round := range 2 {
		for _, t := range tasks {
			start, cpu := time.Now(), storebench.ProcessCPU()
			out, err := rank(ctx, registry.MatchRequest{Task: t.Text, Limit: registry.MaxMatchLimit})
			took, cpu := time.Since(start), storebench.ProcessCPU()-cpu
			if err != nil {
				return dev, held, fmt.Errorf("%q: %w", t.Text, err)
			}
			if round == 0 {
				continue
			}
			var got []string
			for _, m := range out.Items {
				got = append(got, keys[m.Entry.Digest])
			}
			r := res{took: took, cpu: cpu}
			at := slices.IndexFunc(got, func(k string) bool { return slices.Contains(t.Right, k) })
			r.top1, r.top3, r.reach = at == 0, at >= 0 && at < 3, at >= 0
			if !r.top1 && miss != nil {
				miss(t, got[:min(len(got), 3)], at)
			}
			if t.HeldOut {
				heldRes = append(heldRes, r)
			} else {
				devRes = append(devRes, r)
			}
		}
	}
	score := func(rs []res) Score {
		s := Score{Tasks: len(rs)}
		var ts, cs []time.Duration
		for _, r := range rs {
			cs = append(cs, r.cpu)
			if r.top1 {
				s.Top1++
			}
			if r.top3 {
				s.Top3++
			}
			if r.reach {
				s.Reach++
			}
			ts = append(ts, r.took)
		}
		s.Top1 = round3(s.Top1 / float64(len(rs)))
		s.Top3 = round3(s.Top3 / float64(len(rs)))
		s.Reach = round3(s.Reach / float64(len(rs)))
		slices.Sort(ts)
		s.P50Millis = millis(ts[len(ts)/2])
		s.P95Millis = millis(ts[min(len(ts)-1, len(ts)*95/100)])
		slices.Sort(cs)
		s.CPUP50Millis, s.CPUP95Millis = millis(cs[len(cs)/2]), millis(cs[min(len(cs)-1, len(cs)*95/100)])
		return s
	}
	return score(devRes), score(heldRes), nil
}

func round3(x float64) float64 { return float64(int(x*1000+0.5)) / 1000 }

func millis(d time.Duration) float64 { return round3(float64(d.Microseconds()) / 1000) }
