package archive

import (
	"context"
	"errors"
	"os"
	"sync"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// pipeline runs an import on every core: the reader (a directory walk or a
// tar stream, one goroutine, in entry order) hands entries to workers that
// read, validate, hash and parse them in parallel; a collector takes the
// results back in entry order and cuts them into batches; writers store the
// batches with PutMany while the next batch is being prepared; a merger
// adds the batches' outcomes to the report in batch order.
//
// Batches, and the report, depend only on the order of the entries, never
// on which goroutine finished first: the same input gives the same batches
// and the same report, failures listed in entry order.
type pipeline struct {
	docs Target
	lim  Limits

	ctx  context.Context
	stop context.CancelCauseFunc

	work    chan *entry // to the workers, any order
	order   chan *entry // to the collector, entry order
	writes  chan *batch // to the writers
	settled chan *batch // to the merger, batch order

	workers sync.WaitGroup
	// writing is held shared by each write and exclusively by a retry
	// (writeBatch).
	writing sync.RWMutex
	merged  chan struct{} // closed when the merger has finished

	rep Report // written by the merger only
	// replacements are those of the restored deprecations, checked once
	// the import is done (written by the merger only).
	replacements []protocol.Digest
}

// entry is one archive entry or file on its way through the pipeline.
type entry struct {
	name    string
	root    *os.Root // with path: a file of root the worker reads; otherwise content is set
	path    string
	content []byte
	want    *protocol.Digest // the digest the archive names, if any
	rec     *Record          // the archive record, if any

	// Set by the worker (or by the reader for entries that never needed
	// one) before ready is closed.
	doc   store.NewDocument
	err   error // why the entry is refused
	ready chan struct{}
}

// batch is what one PutMany call stores, with the report of every entry
// between the previous batch and this one (refusals included), so that
// merging batch reports in order lists failures in entry order.
type batch struct {
	entries []*entry
	bytes   int
	rep     Report
	done    chan struct{} // closed by the writer
	// replacements named by the deprecations this batch restored.
	replacements []protocol.Digest
}

// entriesInFlight bounds entries read but not yet batched, per worker:
// enough that a slow entry does not idle the other workers, few enough that
// large documents cannot pile up (each is at most MaxDocumentBytes).
// maxEntriesInFlight bounds them in all, so the bound does not grow with
// the number of cores (64 × 1 MiB documents at most).
const (
	entriesInFlight    = 16
	maxEntriesInFlight = 64
)

func newPipeline(ctx context.Context, docs Target, lim Limits) *pipeline {
	ctx, stop := context.WithCancelCause(ctx)
	p := &pipeline{
		docs:    docs,
		lim:     lim,
		ctx:     ctx,
		stop:    stop,
		work:    make(chan *entry, lim.Workers),
		order:   make(chan *entry, min(lim.Workers*entriesInFlight, maxEntriesInFlight)),
		writes:  make(chan *batch),
		settled: make(chan *batch, lim.Writers+1),
		merged:  make(chan struct{}),
	}
	for range lim.Workers {
		p.workers.Add(1)
		go p.prepareEntries()
	}
	for range lim.Writers {
		go p.writeBatches()
	}
	go p.collect()
	go p.merge()
	return p
}

// addFile queues a file of root for a worker to read and prepare.
func (p *pipeline) addFile(name string, root *os.Root, path string) error {
	return p.add(&entry{name: name, root: root, path: path, ready: make(chan struct{})})
}

// addContent queues bytes already read (an archive entry).
func (p *pipeline) addContent(name string, content []byte, want *protocol.Digest, rec *Record) error {
	return p.add(&entry{name: name, content: content, want: want, rec: rec, ready: make(chan struct{})})
}

// fail reports an entry refused before it needed a worker, in its place
// among the others.
func (p *pipeline) fail(name string, err error) error {
	e := &entry{name: name, err: err, ready: make(chan struct{})}
	close(e.ready)
	return p.enqueue(e)
}

// add hands an entry to the workers. The error says the import has stopped
// (a store failure that dooms every later write, or cancellation): the
// reader should stop too.
func (p *pipeline) add(e *entry) error {
	if err := p.enqueue(e); err != nil {
		return err
	}
	select {
	case p.work <- e:
		return nil
	case <-p.ctx.Done():
		// The collector waits for every queued entry.
		e.err = context.Cause(p.ctx)
		close(e.ready)
		return e.err
	}
}

func (p *pipeline) enqueue(e *entry) error {
	select {
	case p.order <- e:
		return nil
	case <-p.ctx.Done():
		return context.Cause(p.ctx)
	}
}

// finish waits for everything queued to be stored and returns the report;
// the error is why the import stopped early, if it did.
func (p *pipeline) finish() (Report, error) {
	close(p.order)
	close(p.work)
	<-p.merged
	p.workers.Wait()
	err := context.Cause(p.ctx) // nil unless stopped or cancelled
	if err == nil {
		err = p.checkReplacements()
	}
	p.stop(nil)
	return p.rep, err
}

func (p *pipeline) prepareEntries() {
	defer p.workers.Done()
	for e := range p.work {
		e.prepare(p.lim)
		close(e.ready)
	}
}

// prepare reads (for files), validates, hashes and parses one entry.
func (e *entry) prepare(lim Limits) {
	if e.root != nil {
		e.content, e.err = readDocumentFile(e.root, e.path, lim.MaxDocumentBytes)
		if e.err != nil {
			return
		}
	}
	e.doc, e.err = prepareDocument(e.content, e.want, e.rec, lim)
	e.content = nil // e.doc holds it
}

// collect takes prepared entries back in entry order and cuts them into
// batches of at most BatchDocuments documents and about BatchBytes bytes.
func (p *pipeline) collect() {
	defer close(p.writes)
	defer close(p.settled)
	b := newBatch()
	// inBatch catches the same document twice in one batch, which PutMany
	// need not handle.
	inBatch := map[protocol.Digest]bool{}
	for e := range p.order {
		<-e.ready
		if p.ctx.Err() != nil {
			continue // stopped: drain so the reader is never stuck
		}
		switch d := e.doc.Document.Sums.SHA1; {
		case e.err != nil:
			b.rep.fail(e.name, e.err)
			continue
		case inBatch[d]:
			b.rep.Existing++
			continue
		default:
			inBatch[d] = true
		}
		b.entries = append(b.entries, e)
		b.bytes += len(e.doc.Document.Content)
		if len(b.entries) >= p.lim.BatchDocuments || b.bytes >= p.lim.BatchBytes {
			p.send(b)
			b = newBatch()
			clear(inBatch)
		}
	}
	if p.ctx.Err() == nil && (len(b.entries) > 0 || b.rep.Failed > 0 || b.rep.Existing > 0) {
		p.send(b)
	}
}

func newBatch() *batch { return &batch{done: make(chan struct{})} }

// send hands a batch to the writers, and to the merger in batch order.
func (p *pipeline) send(b *batch) {
	p.settled <- b
	p.writes <- b
}

// writeBatches stores batches; after a stop it only releases them.
func (p *pipeline) writeBatches() {
	for b := range p.writes {
		if p.ctx.Err() == nil {
			if err := p.writeBatch(b); err != nil {
				p.stop(err)
			}
		}
		close(b.done)
	}
}

// writeBatch writes a batch beside the other writers. With more than one
// writer, a failure that would stop the import may only be a lost race: a
// document in two batches in flight makes each transaction wait for the
// other's row, and PostgreSQL aborts one as a deadlock. A batch of which
// nothing was stored is then written again alone, the other writers held
// back, before its failure counts; one partly stored (one by one, or
// withdrawn after its PutMany) is not, or its stored documents would count
// as existing.
func (p *pipeline) writeBatch(b *batch) error {
	before := b.rep // the collector's part; write adds the store's
	p.writing.RLock()
	err := p.write(b)
	p.writing.RUnlock()
	var retryable nothingStored
	if err == nil || p.lim.Writers == 1 || p.ctx.Err() != nil || !errors.As(err, &retryable) {
		return err
	}
	p.writing.Lock()
	defer p.writing.Unlock()
	b.rep = before
	return p.write(b)
}

// merge adds each batch's report to the import's, in batch order. A batch
// cut short by a stop still counts what it stored.
func (p *pipeline) merge() {
	defer close(p.merged)
	for b := range p.settled {
		<-b.done
		p.rep.add(b.rep)
		p.replacements = append(p.replacements, b.replacements...)
	}
}
