package fault

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/testing/pgtest"
)

// Phases of the outage test; results are counted per phase.
const (
	phaseBefore = iota
	phaseOutage // from the stop command until the start command returns
	phaseAfter
	phases
)

var phaseNames = [phases]string{"before", "outage", "after"}

// outageStats counts what the load saw in each phase.
type outageStats struct {
	requests, acked, unavailable [phases]atomic.Int64
	// first/last 503 (unix nanoseconds) and the slowest 503 answer.
	first503, last503, slowest503 atomic.Int64
	// when PostgreSQL accepted connections again, and the first publish
	// acknowledged after that (unix nanoseconds).
	dbBack, firstAckAfterBack atomic.Int64
	mu                        sync.Mutex
	failures                  []string // anything but success or a clean 503
}

func (s *outageStats) fail(phase int, format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.failures) < 50 {
		s.failures = append(s.failures, phaseNames[phase]+": "+fmt.Sprintf(format, args...))
	}
}

// TestPostgresRestartUnderLoad stops and restarts the local PostgreSQL
// cluster while publishers and fetchers run against a registry process.
// Every acknowledged publish must survive; every failed request must be a
// clean 503 problem (no 500, no hang, no dropped connection); /readyz must
// say 503 during the outage; and the service must recover by itself.
func TestPostgresRestartUnderLoad(t *testing.T) {
	requireFaults(t)
	pg := localCluster(t)
	dsn := pgtest.NewDatabase(t)
	srv := startServer(t, "--database-url", dsn, "--data-dir", t.TempDir())
	c := newClient()
	defer c.close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := waitReady(ctx, c, srv.URL); err != nil {
		t.Fatal(err)
	}

	const (
		publishers, fetchers = 4, 4
		loadBefore           = 3 * time.Second
		outageHold           = 2 * time.Second // the cluster stays down this long
		loadAfter            = 3 * time.Second
		recoveryBound        = 30 * time.Second
	)
	acked := newLedger()
	var stats outageStats
	var phase atomic.Int32
	loadCtx, stopLoad := context.WithCancel(ctx)
	var wg sync.WaitGroup
	record := func(p int, what string, began time.Time, st int, h map[string][]string, body []byte, err error) {
		stats.requests[p].Add(1)
		if st == 503 {
			now := time.Now().UnixNano()
			stats.first503.CompareAndSwap(0, now)
			stats.last503.Store(now)
			for took := now - began.UnixNano(); ; {
				old := stats.slowest503.Load()
				if took <= old || stats.slowest503.CompareAndSwap(old, took) {
					break
				}
			}
		}
		switch {
		case err != nil:
			stats.fail(p, "%s: no HTTP answer: %v", what, err)
		case st == 503:
			if msg := checkProblem(st, h, body, 503, "database_unavailable"); msg != "" {
				stats.fail(p, "%s: unclean 503: %s", what, msg)
			}
			stats.unavailable[p].Add(1)
		default:
			stats.fail(p, "%s: status %d: %.200s", what, st, body)
		}
	}
	for w := range publishers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(1, uint64(w)))
			for loadCtx.Err() == nil {
				doc := newDocument(rng)
				p := int(phase.Load())
				began := time.Now()
				st, h, body, ok, err := c.publish(loadCtx, srv.URL, doc)
				if loadCtx.Err() != nil {
					return
				}
				if ok {
					stats.requests[p].Add(1)
					stats.acked[p].Add(1)
					acked.add(doc)
					if back := stats.dbBack.Load(); back != 0 {
						stats.firstAckAfterBack.CompareAndSwap(0, time.Now().UnixNano())
					}
					continue
				}
				record(p, "publish", began, st, h, body, err)
			}
		}()
	}
	for w := range fetchers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(2, uint64(w)))
			for loadCtx.Err() == nil {
				hex := acked.pick(rng)
				if hex == "" {
					time.Sleep(10 * time.Millisecond)
					continue
				}
				p := int(phase.Load())
				began := time.Now()
				st, h, body, err := c.do(loadCtx, "GET", srv.URL+"/protocol/"+hex, "", nil)
				if loadCtx.Err() != nil {
					return
				}
				if err == nil && st == 200 {
					stats.requests[p].Add(1)
					if !bytes.Equal(body, acked.get(hex)) {
						stats.fail(p, "fetch %s: different bytes", hex)
					}
					continue
				}
				record(p, "fetch "+hex, began, st, h, body, err)
			}
		}()
	}
	stopAll := func() { stopLoad(); wg.Wait() }
	defer stopAll()

	time.Sleep(loadBefore)
	waitBegan := time.Now()
	waitCtx, waitCancel := context.WithTimeout(ctx, 60*time.Second)
	busy, err := pg.waitIdle(waitCtx, databaseName(t, dsn))
	waitCancel()
	if err != nil {
		t.Fatal(err)
	}
	if len(busy) > 0 {
		t.Fatalf("other clients are using the PostgreSQL cluster, refusing to restart it under them: %v\n"+
			"run the fault tests in their own invocation: REGISTRY_TEST_FAULTS=1 go test -count=1 -p 1 ./internal/testing/fault/", busy)
	}

	t.Logf("waited %.1fs for the cluster to be free of other clients", time.Since(waitBegan).Seconds())
	t.Cleanup(func() { pg.ensureStarted(t) }) // even if anything below fails
	phase.Store(phaseOutage)
	stopped := time.Now()
	if err := pg.ctl("stop"); err != nil {
		t.Fatal(err)
	}
	stopTook := time.Since(stopped)
	// The outage as a client sees it: readiness and writes answer 503.
	st, h, body, err := c.do(ctx, "GET", srv.URL+"/readyz", "", nil)
	if err != nil {
		t.Errorf("readyz during the outage: %v", err)
	} else if msg := checkProblem(st, h, body, 503, "database_unavailable"); msg != "" {
		t.Errorf("readyz during the outage: %s", msg)
	}
	st, h, body, _, err = c.publish(ctx, srv.URL, newDocument(rand.New(rand.NewPCG(3, 3))))
	if err != nil {
		t.Errorf("publish during the outage: %v", err)
	} else if msg := checkProblem(st, h, body, 503, "database_unavailable"); msg != "" {
		t.Errorf("publish during the outage: %s", msg)
	}
	// Liveness is not readiness: the process itself is fine.
	if st, _, body, err := c.do(ctx, "GET", srv.URL+"/healthz", "", nil); err != nil || st != 200 {
		t.Errorf("healthz during the outage: %d %v %.200s", st, err, body)
	}
	time.Sleep(outageHold)
	// pg_ctlcluster returns some time after the server accepts connections;
	// recovery is measured from the moment it does.
	pollDone := make(chan struct{})
	go func() {
		defer close(pollDone)
		for ctx.Err() == nil && !pg.up() {
			time.Sleep(20 * time.Millisecond)
		}
		stats.dbBack.Store(time.Now().UnixNano())
	}()

	if err := pg.ctl("start"); err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	<-pollDone
	phase.Store(phaseAfter)
	recoverCtx, recoverCancel := context.WithTimeout(ctx, recoveryBound)
	err = waitReady(recoverCtx, c, srv.URL)
	recoverCancel()
	if err != nil {
		t.Fatalf("no recovery within %v of the database's return: %v", recoveryBound, err)
	}
	readyAfter := time.Since(started)
	time.Sleep(loadAfter)
	stopAll()

	if bad := acked.verifyAll(ctx, c, srv.URL); len(bad) > 0 {
		t.Errorf("%d of %d acknowledged publishes lost or changed: %v", len(bad), acked.len(), bad[:min(5, len(bad))])
	}
	stats.mu.Lock()
	failures := stats.failures
	stats.mu.Unlock()
	if len(failures) > 0 {
		t.Errorf("%d requests ended in something other than success or a clean 503; first: %v", len(failures), failures[:min(10, len(failures))])
	}
	if stats.acked[phaseBefore].Load() == 0 || stats.acked[phaseAfter].Load() == 0 {
		t.Errorf("publishes acknowledged before %d, after %d: the load did not run on both sides of the outage",
			stats.acked[phaseBefore].Load(), stats.acked[phaseAfter].Load())
	}
	for p := range phases {
		t.Logf("phase %-6s requests=%d acknowledged_publishes=%d clean_503=%d", phaseNames[p],
			stats.requests[p].Load(), stats.acked[p].Load(), stats.unavailable[p].Load())
	}
	first, last := time.Unix(0, stats.first503.Load()), time.Unix(0, stats.last503.Load())
	back, firstAck := time.Unix(0, stats.dbBack.Load()), time.Unix(0, stats.firstAckAfterBack.Load())
	if stats.firstAckAfterBack.Load() == 0 {
		t.Errorf("no publish acknowledged after PostgreSQL came back")
	}
	t.Logf("FIGURES pg-restart: stop_took=%.1fs db_down=%.1fs first_503_after_stop=%.2fs 503_window=%.1fs last_503_after_db_back=%+.2fs first_publish_after_db_back=%.2fs slowest_503=%dms ready_after_start_returned=%.2fs acknowledged=%d lost=0 failures=%d",
		stopTook.Seconds(), back.Sub(stopped).Seconds(), first.Sub(stopped).Seconds(), last.Sub(first).Seconds(), last.Sub(back).Seconds(),
		firstAck.Sub(back).Seconds(), time.Duration(stats.slowest503.Load()).Milliseconds(), readyAfter.Seconds(), acked.len(), len(failures))
}
