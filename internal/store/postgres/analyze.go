package postgres

import (
	"context"
	"sync"
	"sync/atomic"
)

// minAnalyzeRows is how many rows bulk writes must add before the store
// refreshes planner statistics itself.
const minAnalyzeRows = 1000

// analyzer refreshes the documents table's planner statistics as rows
// are added, by imports and single publishes alike. Autovacuum does it
// too, but only up to a minute later, and never when it is off: then
// plans for a grown table stay guesses (GET / fell from ~1,270 to 207
// requests/s after many single publishes until a manual ANALYZE).
// Statistics are refreshed each time the table has doubled (at least
// minAnalyzeRows), so n new rows cost O(log n) ANALYZE runs.
type analyzer struct {
	mu       sync.Mutex
	baseline int64 // rows when statistics were last refreshed (an estimate)
	added    int64 // rows added since
	// queued is set while a background refresh (after a single publish)
	// is pending or running, so publishes start at most one.
	queued     atomic.Bool
	background sync.WaitGroup
}

// wrote records new rows and reports whether statistics are due.
func (a *analyzer) wrote(n int) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.added += int64(n)
	return a.added >= max(minAnalyzeRows, a.baseline)
}

// rows is the table's row count as far as the analyzer knows it.
func (a *analyzer) rows() int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.baseline + a.added
}

// maybeAnalyze runs ANALYZE when due (bulk writes, which take their time
// anyway). It is best effort: a failure only leaves the statistics to
// autovacuum.
func (s *Store) maybeAnalyze(ctx context.Context, inserted int) {
	if inserted == 0 || !s.analyze.wrote(inserted) {
		return
	}
	s.analyzeNow(ctx)
}

// analyzeSoon is maybeAnalyze for a single publish: the refresh runs in
// the background, so no publish waits for it.
func (s *Store) analyzeSoon() {
	if !s.analyze.wrote(1) || !s.analyze.queued.CompareAndSwap(false, true) {
		return
	}
	s.analyze.background.Add(1)
	go func() {
		defer s.analyze.background.Done()
		defer s.analyze.queued.Store(false)
		ctx, cancel := context.WithTimeout(context.Background(), s.opTimeout)
		defer cancel()
		s.analyzeNow(ctx)
	}()
}

// analyzeNow refreshes the statistics unless another call is at it.
func (s *Store) analyzeNow(ctx context.Context) {
	if !s.analyzeRunning.TryLock() {
		return // another call is refreshing them
	}
	defer s.analyzeRunning.Unlock()
	if _, err := s.pool.Exec(ctx, "ANALYZE documents"); err != nil {
		return
	}
	s.analyze.mu.Lock()
	s.analyze.baseline += s.analyze.added
	s.analyze.added = 0
	s.analyze.mu.Unlock()
	// Merge the GIN indexes' pending lists into their trees now rather
	// than leave every search to scan them until autovacuum does. Best
	// effort too: autovacuum merges them anyway.
	_, _ = s.pool.Exec(ctx, `SELECT gin_clean_pending_list('documents_search_idx'::regclass),
		gin_clean_pending_list('documents_head_idx'::regclass),
		gin_clean_pending_list('documents_title_lexemes_idx'::regclass),
		gin_clean_pending_list('documents_meta_lexemes_idx'::regclass)`)
}

// loadRowEstimate starts the analyzer from the catalogue's row estimate.
func (s *Store) loadRowEstimate(ctx context.Context) {
	var rows float64
	if err := s.pool.QueryRow(ctx, "SELECT reltuples FROM pg_class WHERE oid = 'documents'::regclass").Scan(&rows); err == nil && rows > 0 {
		s.analyze.baseline = int64(rows)
	}
}
