package api

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/agora-registry/registry/internal/follow"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/translog"
)

// statsMaxAge bounds how stale the documents gauge may be; a scrape never
// costs more than one count query per interval.
const statsMaxAge = 15 * time.Second

// metrics are the server's Prometheus collectors, in a registry of their
// own (several servers can live in one process, e.g. in tests).
type metrics struct {
	reg       *prometheus.Registry
	requests  *prometheus.CounterVec
	latency   *prometheus.HistogramVec
	publishes *prometheus.CounterVec
	reranks   *prometheus.CounterVec

	observersMu sync.RWMutex
	observers   map[observerKey]observer

	svc       *registry.Service
	statsMu   sync.Mutex
	statsAt   time.Time
	documents float64
}

func newMetrics(svc *registry.Service) *metrics {
	m := &metrics{reg: prometheus.NewRegistry(), svc: svc, observers: map[observerKey]observer{}}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "registry_http_requests_total", Help: "HTTP requests by route, method and status.",
	}, []string{"route", "method", "status"})
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "registry_http_request_duration_seconds", Help: "HTTP request latency by route and method.",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
	}, []string{"route", "method"})
	m.publishes = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "registry_publishes_total", Help: "Successful publishes, by whether the document was new.",
	}, []string{"result"})
	m.reranks = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "registry_match_reranks_total", Help: "Matches a configured model could re-rank, by outcome: llm (a completion), cached, or why it was skipped (client_budget, budget, busy, failed).",
	}, []string{"outcome"})
	documents := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "registry_documents", Help: "Listed (not withdrawn) documents stored.",
	}, m.documentCount)
	cacheBytes := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "registry_raw_cache_bytes", Help: "Bytes held by the raw-document cache.",
	}, func() float64 { b, _ := svc.CacheSize(); return float64(b) })
	corrupt := prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "registry_corrupt_documents_total", Help: "Reads that found a document's stored bytes not hashing to its name (answered corrupt_document, never served).",
	}, func() float64 { return float64(svc.CorruptReads()) })
	m.reg.MustRegister(m.requests, m.latency, m.publishes, m.reranks, documents, cacheBytes, corrupt,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if l := svc.Log(); l != nil {
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "registry_log_size", Help: "Records in the transparency log, as this process last saw it.",
		}, func() float64 { n, _ := l.Stats(); return float64(n) }), prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "registry_log_integration_failures_total", Help: "Transparency-log integrations of this process that failed (retried).",
		}, func() float64 { _, f := l.Stats(); return float64(f) }))
		if c := l.Cosigner(); c != nil {
			m.witnesses(c)
		}
	}
	return m
}

// witnesses exports the newest checkpoint's valid cosignatures, the
// quorum and each witness's failed requests.
func (m *metrics) witnesses(c *translog.Cosigner) {
	cosignatures := func() float64 {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		n, _, _, err := c.Status(ctx)
		if err != nil {
			return -1
		}
		return float64(n)
	}
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "registry_witness_cosignatures", Help: "Valid witness cosignatures the newest checkpoint is served with (-1: the store did not answer).",
	}, cosignatures), prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "registry_witness_quorum", Help: "Cosignatures the registry calls enough (--witness-quorum).",
	}, func() float64 { return float64(c.Quorum()) }))
	for name, failures := range c.Failures() {
		m.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "registry_witness_failures_total", Help: "Requests of this process to a witness that failed (retried with backoff).", ConstLabels: prometheus.Labels{"witness": name},
		}, func() float64 { return float64(failures()) }))
	}
}

// follow exports each follower's lag, fork state, errors and quarantined
// documents, labelled by upstream.
func (m *metrics) follow(fs []*follow.Follower) {
	for _, f := range fs {
		labels := prometheus.Labels{"upstream": f.Upstream()}
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "registry_follow_lag_records", Help: "Records of an upstream's latest verified checkpoint not yet applied here (kept while stalled or stopped).", ConstLabels: labels,
		}, func() float64 { return float64(f.Status().Lag) }), prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "registry_follow_forked", Help: "1 when an upstream's log forked and following it stopped (registry follow reset resumes it).", ConstLabels: labels,
		}, func() float64 {
			if f.Status().Forked {
				return 1
			}
			return 0
		}), prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "registry_follow_errors_total", Help: "Failed rounds of a follower (retried with backoff), since this process started.", ConstLabels: labels,
		}, func() float64 { return float64(f.Status().Errors) }), prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "registry_follow_consecutive_errors", Help: "Failed rounds of a follower since its last successful one (0: healthy).", ConstLabels: labels,
		}, func() float64 { return float64(f.Status().Failing) }), prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "registry_follow_quarantined_documents", Help: "An upstream's documents whose bytes did not match its log (not stored).", ConstLabels: labels,
		}, func() float64 { return float64(f.Status().Quarantined) }), prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "registry_follow_deferred_withdrawals", Help: "Withdrawals waiting for another followed upstream to say whether it logged the document (still served).", ConstLabels: labels,
		}, func() float64 { return float64(f.Status().Deferred) }))
	}
}

// longPolls exports how many change-feed long polls are waiting.
func (m *metrics) longPolls(p *longPolls) {
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "registry_changes_long_polls", Help: "Change-feed long polls (wait=) waiting.",
	}, func() float64 { return float64(p.waiting()) }))
}

// observe counts and times one answered request. The label children are
// resolved once per route, method and status and kept: WithLabelValues
// hashes and formats its labels on every call, which showed in profiles.
func (m *metrics) observe(route, method string, status int, d time.Duration) {
	o := m.observerFor(observerKey{route: route, method: metricMethod(method), status: status})
	o.count.Inc()
	o.latency.Observe(d.Seconds())
}

type observerKey struct {
	route, method string
	status        int
}

type observer struct {
	count   prometheus.Counter
	latency prometheus.Observer
}

func (m *metrics) observerFor(k observerKey) observer {
	m.observersMu.RLock()
	o, ok := m.observers[k]
	m.observersMu.RUnlock()
	if ok {
		return o
	}
	o = observer{
		count:   m.requests.WithLabelValues(k.route, k.method, strconv.Itoa(k.status)),
		latency: m.latency.WithLabelValues(k.route, k.method),
	}
	m.observersMu.Lock()
	m.observers[k] = o
	m.observersMu.Unlock()
	return o
}

// metricMethod bounds the method label: the method is whatever a client
// sent, and every distinct label value is a new time series kept forever.
// Routes are bounded already (registered patterns or "unmatched"), and
// statuses are three digits.
func metricMethod(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "OTHER"
}

// reranked counts a match's re-rank outcome (none without a model).
func (m *metrics) reranked(res registry.MatchResult) {
	switch {
	case res.Skipped != "":
		m.reranks.WithLabelValues(res.Skipped).Inc()
	case res.Cached:
		m.reranks.WithLabelValues("cached").Inc()
	case res.RankedBy == registry.RankedByLLM:
		m.reranks.WithLabelValues("llm").Inc()
	}
}

func (m *metrics) published(created bool) {
	result := "existing"
	if created {
		result = "created"
	}
	m.publishes.WithLabelValues(result).Inc()
}

// documentCount serves the gauge from a cached Stats; on a store error the
// last known value stays.
func (m *metrics) documentCount() float64 {
	m.statsMu.Lock()
	defer m.statsMu.Unlock()
	if time.Since(m.statsAt) < statsMaxAge {
		return m.documents
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if st, err := m.svc.Stats(ctx); err == nil {
		m.documents = float64(st.Documents)
	}
	m.statsAt = time.Now()
	return m.documents
}

func (s *Server) metricsHandler() echo.HandlerFunc {
	h := promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{})
	return echo.WrapHandler(h)
}
