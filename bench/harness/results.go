package harness

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"time"
)

// EngineRun is everything measured for one engine at one N. It is kept as
// JSON beside the report, so partial runs update it and the report is
// always rebuilt from every stored run (the growth table needs all N).
type EngineRun struct {
	Engine      string                     `json:"engine"`
	N           int                        `json:"n"`
	Date        time.Time                  `json:"date"`
	Machine     Machine                    `json:"machine"`
	Connections int                        `json:"connections"`
	Seconds     float64                    `json:"seconds_per_measurement"`
	Import      *Import                    `json:"import,omitempty"`
	ReadyMs     float64                    `json:"ready_ms"`
	IdleMemory  Memory                     `json:"idle_memory"`
	Words       [3]string                  `json:"words"` // common, rare, tag
	Scenarios   map[string]*ScenarioResult `json:"scenarios"`
	Pgbench     *Pgbench                   `json:"pgbench,omitempty"`
	Notes       []string                   `json:"notes,omitempty"`
}

// Import is the bulk import of the corpus.
type Import struct {
	Documents  int     `json:"documents"`
	Bytes      int64   `json:"bytes"`
	Seconds    float64 `json:"seconds"`
	DocsPerSec float64 `json:"docs_per_sec"`
	Command    string  `json:"command"`
}

// ScenarioResult holds a scenario's measurements on every server.
type ScenarioResult struct {
	Name         string        `json:"name"`
	Description  string        `json:"description"`
	Date         time.Time     `json:"date"`
	Measurements []Measurement `json:"measurements"`
}

// Find returns the measurement of server in mode, or nil.
func (s *ScenarioResult) Find(server, mode string) *Measurement {
	if s == nil {
		return nil
	}
	for i := range s.Measurements {
		if s.Measurements[i].Server == server && s.Measurements[i].Mode == mode {
			return &s.Measurements[i]
		}
	}
	return nil
}

func runPath(dir, engine string, n int) string {
	return filepath.Join(dir, fmt.Sprintf("%s-%d.json", engine, n))
}

// LoadRun reads a stored run, or returns nil when there is none.
func LoadRun(dir, engine string, n int) (*EngineRun, error) {
	b, err := os.ReadFile(runPath(dir, engine, n))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var r EngineRun
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", runPath(dir, engine, n), err)
	}
	return &r, nil
}

// Merge folds a partial run into a stored one: every scenario and figure
// the new run measured replaces the stored one; the rest is kept.
func Merge(old, cur *EngineRun) *EngineRun {
	if old == nil {
		return cur
	}
	out := *cur
	out.Scenarios = map[string]*ScenarioResult{}
	for k, v := range old.Scenarios {
		out.Scenarios[k] = v
	}
	for k, v := range cur.Scenarios {
		out.Scenarios[k] = v
	}
	if out.Pgbench == nil {
		out.Pgbench = old.Pgbench
	}
	if out.Import == nil {
		out.Import = old.Import
	}
	return &out
}

// checkMergeable refuses a run that would share a report section with a
// stored run measured differently: a section has one line of settings,
// and its ratios compare rows measured side by side.
func checkMergeable(old *EngineRun, o Options) error {
	if old == nil {
		return nil
	}
	if old.Seconds != o.Duration.Seconds() || old.Connections != o.Connections {
		return fmt.Errorf("%s holds a run with -d %gs -c %d, this one asks for -d %gs -c %d",
			runPath(o.ResultsDir, old.Engine, old.N), old.Seconds, old.Connections, o.Duration.Seconds(), o.Connections)
	}
	if o.NoBaselines {
		for _, name := range o.Scenarios {
			if sc := old.Scenarios[name]; sc != nil && slices.ContainsFunc(sc.Measurements, func(m Measurement) bool { return m.Server != "registry" }) {
				return fmt.Errorf("-no-baselines would replace scenario %s of %s, stored with its baselines, by one without them",
					name, runPath(o.ResultsDir, old.Engine, old.N))
			}
		}
	}
	return nil
}

// SaveRun writes a run as indented JSON.
func SaveRun(dir string, r *EngineRun) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(runPath(dir, r.Engine, r.N), append(b, '\n'), 0o644)
}

// LoadAllRuns reads every stored run, ordered by engine then N.
func LoadAllRuns(dir string) ([]*EngineRun, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*-*.json"))
	if err != nil {
		return nil, err
	}
	var runs []*EngineRun
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var r EngineRun
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		runs = append(runs, &r)
	}
	sort.Slice(runs, func(i, j int) bool {
		if runs[i].Engine != runs[j].Engine {
			return runs[i].Engine > runs[j].Engine // sqlite before postgres
		}
		return runs[i].N < runs[j].N
	})
	return runs, nil
}
