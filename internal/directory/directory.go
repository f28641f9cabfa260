// Package directory is the registry's agent directory: agents registered
// by origin, crawled through the SSRF guard for what they speak in each
// dialect (Agora well-known lists, A2A agent cards with their signatures,
// ARD manifests), re-crawled on a jittered schedule with bounded
// concurrency, and dropped after repeated failures.
package directory

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// Store is what the directory needs from the store.
type Store interface {
	store.Agents
}

// Defaults of Config.
const (
	DefaultInterval       = time.Hour
	DefaultConcurrency    = 4
	DefaultMaxFailures    = 5
	DefaultTimeout        = 10 * time.Second
	DefaultWellKnownBytes = 1 << 20
	DefaultPerClientDay   = 20
	DefaultPerClientTotal = 100
	DefaultClientQueue    = 4
	DefaultRegisterWait   = 2 * time.Second
	// jitter spreads re-crawls over ±10% of the interval, so agents
	// registered together are not crawled together forever.
	jitter = 0.1
	// dueBatch caps the agents one scheduling round reads.
	dueBatch = 100
	// maxQueued caps the registrations queued or crawling, all clients
	// together (each client's share is Config.ClientQueue).
	maxQueued = 1024
)

// Config configures a Directory. Zero values get the defaults.
type Config struct {
	Interval    time.Duration // between crawls of one agent
	Concurrency int           // crawls at once, registrations included
	MaxFailures int           // failed crawls in a row that remove an agent
	Timeout     time.Duration // one crawl, all well-known paths and redirects
	MaxBytes    int           // one well-known answer
	// PerClientDay and PerClientTotal cap the new agents one client adds
	// per 24 hours and the agents its registrations hold at once.
	PerClientDay, PerClientTotal int
	// ClientQueue caps one client's registrations queued or crawling.
	ClientQueue int
	// RegisterWait is how long a registration waits for its crawl before
	// answering that the crawl is pending.
	RegisterWait time.Duration
	// Allow opens the SSRF guard (--outbound-allow).
	Allow  []string
	Logger *slog.Logger
	// Now is the clock (tests); nil means time.Now.
	Now func() time.Time
}

// Errors of registration.
var (
	ErrBadURL      = apperr.New(apperr.Invalid, "invalid_agent_url", "an agent URL is an absolute http or https URL without credentials, query or fragment")
	ErrUnreachable = apperr.New(apperr.Invalid, "agent_unreachable",
		"none of the agent's well-known documents (Agora list, A2A agent card, ARD manifest) could be read")
	ErrQueueFull = apperr.New(apperr.RateLimited, "agent_queue_full",
		"your address already has as many agent registrations waiting for their crawl as it may; let one finish first")
	ErrBusy = apperr.New(apperr.Unavailable, "directory_busy", "the directory has as many registrations waiting as it can hold; retry shortly")
)

// Directory registers and crawls agents. Crawls run on Concurrency slots:
// registrations take at most all but a quarter of them (the rest are the
// scheduled re-crawls'), one client's registrations one slot at a time,
// clients in turn; re-crawls and registrations alternate when both wait.
type Directory struct {
	store     Store
	cfg       Config
	fetch     *agora.Fetcher
	log       *slog.Logger
	regLimit  int // slots registrations may hold at once
	maxQueued int // registrations queued, crawling or reserving, all clients
	base      context.Context
	stop      context.CancelFunc

	mu            sync.Mutex
	idle          *sync.Cond // busy dropped (Close waits on it)
	rng           *rand.Rand
	busy, regBusy int
	preferRecrawl bool
	queued        int                // registrations queued, crawling or reserving
	clients       map[string]*client // clients with registrations under way
	ring          []string           // clients in turn
	next          int                // ring index of the next client's turn
	recrawls      []*job
	inflight      map[string]*job          // by agent URL
	reserving     map[string]chan struct{} // agent URLs a registration is adding to the store
}

// client is one client's registrations under way.
type client struct {
	held    int    // queued, crawling or reserving: ClientQueue caps it
	jobs    []*job // queued
	running bool   // holds a slot
}

// job is one crawl of one agent, a registration's or a re-crawl's; later
// registrations of an agent wait for the job already under way.
type job struct {
	id      int64
	url     string
	client  string
	recrawl bool
	created bool // a registration added the agent for this crawl
	// answered: the outcome is being recorded; detached: a registration
	// stopped waiting and was told the crawl is pending.
	answered, detached bool
	done               chan struct{}
	agent              entity.Agent
	err                error
}

// Registration is the outcome of a registration.
type Registration struct {
	Agent   entity.Agent
	Created bool // this registration added the agent
	Pending bool // its crawl was still queued or running when the answer was due
}

// New builds a directory; it fails on a malformed allow-list.
func New(s Store, cfg Config) (*Directory, error) {
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultInterval
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = DefaultConcurrency
	}
	if cfg.MaxFailures <= 0 {
		cfg.MaxFailures = DefaultMaxFailures
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultWellKnownBytes
	}
	if cfg.PerClientDay <= 0 {
		cfg.PerClientDay = DefaultPerClientDay
	}
	if cfg.PerClientTotal <= 0 {
		cfg.PerClientTotal = DefaultPerClientTotal
	}
	if cfg.ClientQueue <= 0 {
		cfg.ClientQueue = DefaultClientQueue
	}
	if cfg.RegisterWait <= 0 {
		cfg.RegisterWait = DefaultRegisterWait
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	fetch, err := agora.NewFetcher(agora.FetchPolicy{Allow: cfg.Allow, Timeout: cfg.Timeout})
	if err != nil {
		return nil, err
	}
	regLimit := 1 // one slot: registrations and re-crawls alternate on it
	if cfg.Concurrency > 1 {
		regLimit = cfg.Concurrency - max(1, cfg.Concurrency/4)
	}
	base, stop := context.WithCancel(context.Background())
	d := &Directory{store: s, cfg: cfg, fetch: fetch, log: cfg.Logger, regLimit: regLimit, maxQueued: maxQueued, base: base, stop: stop,
		rng:     rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0)),
		clients: map[string]*client{}, inflight: map[string]*job{}, reserving: map[string]chan struct{}{}}
	d.idle = sync.NewCond(&d.mu)
	return d, nil
}

// Close stops the crawls under way (they record nothing) and waits for
// them; call it before closing the store.
func (d *Directory) Close() {
	d.stop()
	d.mu.Lock()
	for d.busy > 0 {
		d.idle.Wait()
	}
	d.mu.Unlock()
}

// nextCrawl is when an agent crawled at now is crawled again.
func (d *Directory) nextCrawl(now time.Time) time.Time {
	d.mu.Lock()
	f := 1 + jitter*(2*d.rng.Float64()-1)
	d.mu.Unlock()
	return now.Add(time.Duration(float64(d.cfg.Interval) * f))
}

// Register registers the agent at rawURL for a caller in the registry's
// own process: no client caps, and it waits for the crawl (or ctx). An
// agent whose list cannot be read is not registered.
func (d *Directory) Register(ctx context.Context, rawURL string) (entity.Agent, bool, error) {
	r, err := d.register(ctx, rawURL, "", false, 0)
	return r.Agent, r.Created, err
}

// Submit registers the agent at rawURL for client (its address or IPv6
// prefix): within the client's caps and queue, it answers once the crawl
// is done or after RegisterWait, whichever comes first (Pending). A
// registration whose crawl fails while it waits is refused and adds
// nothing; one answered Pending keeps a new agent, unlisted, with its
// failure to read.
func (d *Directory) Submit(ctx context.Context, rawURL, client string) (Registration, error) {
	return d.register(ctx, rawURL, client, true, d.cfg.RegisterWait)
}

// Crawling reports whether a crawl of the agent at url is queued or running.
func (d *Directory) Crawling(url string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.inflight[url] != nil
}

func (d *Directory) register(ctx context.Context, rawURL, key string, capped bool, wait time.Duration) (Registration, error) {
	u, err := Origin(rawURL)
	if err != nil {
		return Registration{}, err
	}
	for {
		d.mu.Lock()
		if j := d.inflight[u]; j != nil {
			d.mu.Unlock()
			return d.wait(ctx, j, false, wait)
		}
		ch := d.reserving[u]
		if ch == nil {
			break // d.mu held
		}
		d.mu.Unlock()
		select { // another registration of it is in the store: its crawl comes next
		case <-ch:
		case <-ctx.Done():
			return Registration{}, ctx.Err()
		}
	}
	cl := d.clients[key]
	switch {
	case cl != nil && cl.held >= d.cfg.ClientQueue:
		d.mu.Unlock()
		return Registration{}, ErrQueueFull.With(fmt.Sprintf("your address already has %d agent registrations waiting for their crawl; let one finish first", cl.held))
	case d.queued >= d.maxQueued:
		d.mu.Unlock()
		return Registration{}, ErrBusy
	case cl == nil:
		cl = &client{}
		d.clients[key] = cl
		d.ring = append(d.ring, key)
	}
	cl.held++
	d.queued++
	reserved := make(chan struct{})
	d.reserving[u] = reserved
	d.mu.Unlock()

	now := d.cfg.Now()
	// A new agent's row waits an interval for its crawl: if the process
	// stops first, the schedule crawls it later.
	res := store.AgentReservation{URL: u, Registrant: key, At: now, Next: now.Add(d.cfg.Interval)}
	if capped {
		res.PerDay, res.Total = d.cfg.PerClientDay, d.cfg.PerClientTotal
	}
	a, created, err := d.store.ReserveAgent(ctx, res)

	d.mu.Lock()
	delete(d.reserving, u)
	close(reserved)
	if err != nil {
		d.releaseLocked(key)
		d.mu.Unlock()
		return Registration{}, err
	}
	if j := d.inflight[u]; j != nil { // a re-crawl of it started meanwhile
		d.releaseLocked(key)
		d.mu.Unlock()
		return d.wait(ctx, j, created, wait)
	}
	j := &job{id: a.ID, url: u, client: key, created: created, done: make(chan struct{})}
	d.inflight[u] = j
	cl.jobs = append(cl.jobs, j)
	d.dispatchLocked()
	d.mu.Unlock()
	return d.wait(ctx, j, created, wait)
}

// wait waits for j at most wait (0: until it is done or ctx ends).
func (d *Directory) wait(ctx context.Context, j *job, created bool, wait time.Duration) (Registration, error) {
	var timeout <-chan time.Time
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		timeout = t.C
	}
	timedOut := false
	select {
	case <-j.done:
		return j.registration(created)
	case <-timeout:
		timedOut = true
	case <-ctx.Done():
	}
	d.mu.Lock()
	if j.answered { // the outcome is being written: it comes in one store call
		d.mu.Unlock()
		<-j.done
		return j.registration(created)
	}
	// Only a registrant told the crawl is pending keeps a new agent whose
	// crawl fails; one that hung up was told nothing.
	j.detached = j.detached || timedOut
	d.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return Registration{}, err
	}
	a, err := d.store.GetAgent(ctx, j.id)
	return Registration{Agent: a, Created: created, Pending: true}, err
}

func (j *job) registration(created bool) (Registration, error) {
	if j.err != nil {
		return Registration{}, j.err
	}
	return Registration{Agent: j.agent, Created: created}, nil
}

// releaseLocked drops one of key's registrations; a client with none
// leaves the table.
func (d *Directory) releaseLocked(key string) {
	d.queued--
	cl := d.clients[key]
	if cl.held--; cl.held > 0 {
		return
	}
	delete(d.clients, key)
	i := slices.Index(d.ring, key)
	d.ring = slices.Delete(d.ring, i, i+1)
	if i < d.next {
		d.next--
	}
}

// dispatchLocked starts queued jobs on the free slots.
func (d *Directory) dispatchLocked() {
	for d.busy < d.cfg.Concurrency {
		j := d.pickLocked()
		if j == nil {
			return
		}
		d.busy++
		go d.run(j)
	}
}

// pickLocked takes the next job: registrations within regLimit, one slot
// per client, clients in turn; a re-crawl whenever registrations cannot
// have the slot, and every other time when both wait.
func (d *Directory) pickLocked() *job {
	if len(d.recrawls) > 0 && (d.preferRecrawl || d.regBusy >= d.regLimit) {
		return d.popRecrawlLocked()
	}
	if d.regBusy < d.regLimit {
		for i := range len(d.ring) {
			k := (d.next + i) % len(d.ring)
			cl := d.clients[d.ring[k]]
			if cl.running || len(cl.jobs) == 0 {
				continue
			}
			j := cl.jobs[0]
			cl.jobs = cl.jobs[1:]
			cl.running = true
			d.regBusy++
			d.next = k + 1
			d.preferRecrawl = true
			return j
		}
	}
	if len(d.recrawls) > 0 {
		return d.popRecrawlLocked()
	}
	return nil
}

func (d *Directory) popRecrawlLocked() *job {
	j := d.recrawls[0]
	d.recrawls = d.recrawls[1:]
	d.preferRecrawl = false
	return j
}

// run crawls j on a slot and records the outcome.
func (d *Directory) run(j *job) {
	crawl, err := d.Crawl(d.base, j.url)
	d.mu.Lock()
	j.answered = true
	keep := j.detached
	d.mu.Unlock()
	if j.recrawl {
		d.recordRecrawl(j, crawl, err)
	} else {
		d.recordRegistration(j, crawl, err, keep)
	}
	d.mu.Lock()
	d.busy--
	delete(d.inflight, j.url)
	if !j.recrawl {
		d.regBusy--
		d.clients[j.client].running = false
		d.releaseLocked(j.client)
	}
	d.dispatchLocked()
	d.idle.Broadcast()
	d.mu.Unlock()
	close(j.done)
}

func (d *Directory) recordRegistration(j *job, crawl entity.AgentCrawl, err error, keep bool) {
	now := d.cfg.Now()
	if err == nil {
		j.err = d.record(j, crawl, now)
		return
	}
	j.err = err
	// A known agent keeps its state (a registration cannot count failures
	// against someone else's agent); a new one is removed unless someone
	// was told its crawl is pending: they read the failure on its record.
	if !j.created || d.base.Err() != nil {
		return
	}
	maxFailures := 1
	if keep {
		maxFailures = d.cfg.MaxFailures
	}
	if _, rerr := d.store.RecordCrawlFailure(d.base, j.id, now, message(err), d.nextCrawl(now), maxFailures); rerr != nil && !errors.Is(rerr, store.ErrAgentNotFound) {
		d.log.Warn("recording an agent's failed first crawl failed", "agent", j.id, "error", rerr)
	}
}

// Crawl reads every dialect the agent at agentURL publishes, at once and
// within one Timeout: its Agora well-known list (/.well-known/agora, then
// /.wellknown, then /wellknown, the first that answers one wins), its A2A
// agent card with its signature checked, and its ARD manifest. A dialect
// that cannot be read has its failure in the crawl's state for it; the
// crawl fails only if no dialect could be read.
func (d *Directory) Crawl(ctx context.Context, agentURL string) (entity.AgentCrawl, error) {
	ctx, cancel := context.WithTimeout(ctx, d.cfg.Timeout)
	defer cancel()
	var (
		wg               sync.WaitGroup
		agora            entity.AgentCrawl
		card             entity.AgentCard
		manifest         entity.AgentManifest
		errA, errC, errM error
	)
	wg.Go(func() { agora, errA = d.crawlAgora(ctx, agentURL) })
	wg.Go(func() { card, errC = d.crawlCard(ctx, agentURL) })
	wg.Go(func() { manifest, errM = d.crawlManifest(ctx, agentURL) })
	wg.Wait()
	c := agora
	if errA != nil {
		c = entity.AgentCrawl{Agora: entity.DialectState{Error: errA.Error()}}
	}
	if errC == nil {
		c.A2A = &card
	} else {
		c.A2AState.Error = errC.Error()
	}
	if errM == nil {
		c.ARD = &manifest
	} else {
		c.ARDState.Error = errM.Error()
	}
	if !c.Speaks() {
		return entity.AgentCrawl{}, ErrUnreachable.With("reading the agent's well-known documents failed: " +
			strings.Join([]string{errA.Error(), errC.Error(), errM.Error()}, "; "))
	}
	return c, nil
}

// crawlAgora reads the Agora well-known list.
func (d *Directory) crawlAgora(ctx context.Context, agentURL string) (entity.AgentCrawl, error) {
	var failures []string
	for _, wk := range wellKnownPaths {
		u := agentURL + wk.path
		body, err := d.fetch.Get(ctx, u, d.cfg.MaxBytes)
		if err == nil {
			var c entity.AgentCrawl
			if c, err = wk.parse(body); err == nil {
				c.WellKnownURL = u
				return c, nil
			}
		}
		failures = append(failures, wk.path+": "+reason(err))
		if ctx.Err() != nil {
			break
		}
	}
	return entity.AgentCrawl{}, errors.New(strings.Join(failures, "; "))
}

// crawlCard reads the A2A agent card and checks its signature.
func (d *Directory) crawlCard(ctx context.Context, agentURL string) (entity.AgentCard, error) {
	u := agentURL + a2aCardPath
	body, err := d.fetch.Get(ctx, u, d.cfg.MaxBytes)
	var c entity.AgentCard
	if err == nil {
		c, err = parseCard(body)
	}
	if err != nil {
		return entity.AgentCard{}, errors.New(a2aCardPath + ": " + reason(err))
	}
	c.URL = u
	c.Signature, c.SignatureReason, c.SignatureKeyID = d.verifyCard(ctx, agentURL, body)
	return c, nil
}

// crawlManifest reads the ARD manifest.
func (d *Directory) crawlManifest(ctx context.Context, agentURL string) (entity.AgentManifest, error) {
	var failures []string
	for _, p := range ardPaths {
		u := agentURL + p
		body, err := d.fetch.Get(ctx, u, d.cfg.MaxBytes)
		if err == nil {
			var m entity.AgentManifest
			if m, err = parseManifest(body); err == nil {
				m.URL = u
				return m, nil
			}
		}
		failures = append(failures, p+": "+reason(err))
		if ctx.Err() != nil {
			break
		}
	}
	return entity.AgentManifest{}, errors.New(strings.Join(failures, "; "))
}

// merge carries into a good crawl the last good data of each dialect that
// could not be read this time, until that dialect has failed MaxFailures
// reads in a row; the agent's name and description come from its A2A
// card when its Agora list gives none.
func (d *Directory) merge(prev entity.Agent, c entity.AgentCrawl) entity.AgentCrawl {
	keep := func(failed bool, st *entity.DialectState, prevSt entity.DialectState, had bool) bool {
		if !failed {
			return false
		}
		st.Failures = prevSt.Failures + 1
		st.Error = store.CheckAgentReason(st.Error)
		return had && st.Failures < d.cfg.MaxFailures
	}
	if keep(c.WellKnownURL == "", &c.Agora, prev.Agora, prev.WellKnownURL != "") {
		c.Name, c.Description, c.Kinds, c.WellKnownURL = prev.Name, prev.Description, prev.Kinds, prev.WellKnownURL
		c.Supported, c.Unsupported = prev.Supported, prev.Unsupported
	}
	if keep(c.A2A == nil, &c.A2AState, prev.A2AState, prev.A2A != nil) {
		c.A2A = prev.A2A
	}
	if keep(c.ARD == nil, &c.ARDState, prev.ARDState, prev.ARD != nil) {
		c.ARD = prev.ARD
	}
	if c.Name == "" && c.A2A != nil {
		c.Name, c.Description = c.A2A.Name, c.A2A.Description
	}
	return c
}

// record writes a good crawl of j's agent, merged with what its record held.
func (d *Directory) record(j *job, crawl entity.AgentCrawl, now time.Time) error {
	prev, err := d.store.GetAgent(d.base, j.id)
	if err != nil {
		return err
	}
	if err := d.store.RecordCrawl(d.base, j.id, now, d.merge(prev, crawl), d.nextCrawl(now)); err != nil {
		return err
	}
	j.agent, err = d.store.GetAgent(d.base, j.id)
	return err
}

// reason is a failure in words fit to show anyone (the guard's classified
// messages; never a raw dial error naming what a host resolved to).
func reason(err error) string {
	if errors.Is(err, agora.ErrFetchBlocked) {
		return agora.ErrFetchBlocked.Message + " (the registry's --outbound-allow opens private addresses)"
	}
	if e := apperr.As(err); e != nil {
		return e.Message
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "timed out"
	}
	if errors.Is(err, errNotObject) || errors.Is(err, errNotCard) || errors.Is(err, errNotManifest) {
		return err.Error()
	}
	return "the fetch failed"
}

// CrawlDue queues every due agent not already being crawled (at most a
// scheduling round's worth), waits for their crawls and returns how many
// it queued.
func (d *Directory) CrawlDue(ctx context.Context) (int, error) {
	due, err := d.store.DueAgents(ctx, d.cfg.Now(), dueBatch)
	if err != nil {
		return 0, err
	}
	var mine []*job
	d.mu.Lock()
	for _, a := range due {
		if d.inflight[a.URL] != nil {
			continue
		}
		j := &job{id: a.ID, url: a.URL, recrawl: true, done: make(chan struct{})}
		d.inflight[a.URL] = j
		d.recrawls = append(d.recrawls, j)
		mine = append(mine, j)
	}
	d.dispatchLocked()
	d.mu.Unlock()
	for _, j := range mine {
		select {
		case <-j.done:
		case <-ctx.Done():
			return len(mine), ctx.Err()
		}
	}
	return len(mine), ctx.Err()
}

func (d *Directory) recordRecrawl(j *job, crawl entity.AgentCrawl, err error) {
	now := d.cfg.Now()
	if err == nil {
		err = d.record(j, crawl, now)
		if err != nil && !errors.Is(err, store.ErrAgentNotFound) {
			d.log.Warn("recording an agent crawl failed", "agent", j.id, "error", err)
		}
		j.err = err
		return
	}
	j.err = err
	if d.base.Err() != nil {
		return // shutting down: not the agent's failure
	}
	removed, rerr := d.store.RecordCrawlFailure(d.base, j.id, now, message(err), d.nextCrawl(now), d.cfg.MaxFailures)
	switch {
	case rerr != nil && !errors.Is(rerr, store.ErrAgentNotFound):
		d.log.Warn("recording an agent's failed crawl failed", "agent", j.id, "error", rerr)
	case removed:
		d.log.Info("agent removed from the directory after failed crawls", "agent", j.id, "url", j.url, "failures", d.cfg.MaxFailures)
	}
}

// message is a crawl failure's words for the agent's record.
func message(err error) string {
	if e := apperr.As(err); e != nil {
		return e.Message
	}
	return err.Error()
}

// Run re-crawls due agents until ctx ends, looking for due agents every
// tenth of the interval (at most every minute).
func (d *Directory) Run(ctx context.Context) {
	tick := min(d.cfg.Interval/10, time.Minute)
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		if n, err := d.CrawlDue(ctx); err != nil && ctx.Err() == nil {
			d.log.Warn("crawling due agents failed", "error", err)
		} else if n == dueBatch {
			continue // more are due: no wait
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Get returns one agent with its lists.
func (d *Directory) Get(ctx context.Context, id int64) (entity.Agent, error) {
	return d.store.GetAgent(ctx, id)
}

// List lists agents.
func (d *Directory) List(ctx context.Context, q store.AgentQuery) (store.AgentPage, error) {
	return d.store.ListAgents(ctx, q)
}

// For lists who speaks and who refuses a protocol.
func (d *Directory) For(ctx context.Context, h protocol.Digest) (store.ProtocolAgents, error) {
	return d.store.AgentsFor(ctx, h)
}

// SpeakerCounts counts the agents speaking each hash.
func (d *Directory) SpeakerCounts(ctx context.Context, ds []protocol.Digest) (map[protocol.Digest]int, error) {
	return d.store.SpeakerCounts(ctx, ds)
}

// ByURL returns the listed agent whose origin is url, with its lists.
func (d *Directory) ByURL(ctx context.Context, url string) (entity.Agent, error) {
	return d.store.AgentByURL(ctx, url)
}

// Count counts the listed agents.
func (d *Directory) Count(ctx context.Context) (int, error) {
	return d.store.CountAgents(ctx)
}
