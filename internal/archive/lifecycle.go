package archive

import (
	"fmt"
	"time"

	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/store"
)

// lifecycleOf is what an export keeps of an entry's lifecycle: nothing
// for a document whose status was never set and that has no history.
func lifecycleOf(e entity.Entry, history []entity.HistoryEvent, rec *Record) {
	if lc := e.Lifecycle; lc.ChangedAt != nil || lc.Status == entity.StatusDeprecated {
		rec.Status = string(lc.Status)
		if rec.Status == "" {
			rec.Status = string(entity.StatusActive)
		}
		rec.StatusMessage, rec.Replacement, rec.StatusChangedAt = lc.Message, lc.Replacement, entity.InUTC(lc.ChangedAt)
	}
	for _, ev := range history {
		rec.History = append(rec.History, HistoryEvent{At: ev.At.UTC(), Actor: ev.Actor, Status: string(ev.Status),
			Message: ev.Message, Replacement: ev.Replacement})
	}
}

// lifecycle is the record's lifecycle as the store restores it (after
// checkLifecycle): a record with history only is active.
func (r *Record) lifecycle() (entity.Lifecycle, []entity.HistoryEvent) {
	lc := entity.Lifecycle{Status: entity.Status(r.Status), Message: r.StatusMessage, Replacement: r.Replacement, ChangedAt: r.StatusChangedAt}
	if lc.Status == "" {
		lc.Status = entity.StatusActive
	}
	history := make([]entity.HistoryEvent, len(r.History))
	for i, ev := range r.History {
		history[i] = entity.HistoryEvent{At: ev.At, Actor: ev.Actor, Status: entity.Status(ev.Status), Message: ev.Message, Replacement: ev.Replacement}
	}
	return lc, history
}

// checkLifecycle refuses a record's lifecycle that no registry records:
// what the store would refuse, and times before any Agora document or in
// the future.
func checkLifecycle(rec *Record) error {
	if !rec.hasLifecycle() {
		return nil
	}
	lc, history := rec.lifecycle()
	if err := store.CheckRestore(rec.Digest, lc, history); err != nil {
		msg := err.Error()
		if e := apperr.As(err); e != nil {
			msg = e.Message
		}
		return ErrInvalidRecord.With("the lifecycle: " + msg)
	}
	times := []time.Time{}
	if rec.StatusChangedAt != nil {
		times = append(times, *rec.StatusChangedAt)
	}
	for _, ev := range rec.History {
		times = append(times, ev.At)
	}
	for _, at := range times {
		if at.After(time.Now().Add(24*time.Hour)) || at.Before(EarliestCreatedAt) {
			return ErrInvalidRecord.With(fmt.Sprintf("the lifecycle: a status change at %s is in the future or before %s",
				at.UTC().Format(time.RFC3339), EarliestCreatedAt.Format("2006-01-02")))
		}
	}
	return nil
}

// checkReplacements warns about restored deprecations whose replacement
// this registry does not hold (an archive restored in part): one resolve
// per store.MaxResolve of them, after everything is stored, since a
// replacement may come later in the archive than what it replaces. Memory:
// one digest per restored deprecation with a replacement.
func (p *pipeline) checkReplacements() error {
	missing := 0
	for start := 0; start < len(p.replacements); start += store.MaxResolve {
		res, err := p.docs.Resolve(p.ctx, p.replacements[start:min(start+store.MaxResolve, len(p.replacements))])
		if err != nil {
			return err
		}
		for _, r := range res {
			if !r.Found || r.Withdrawn {
				missing++
			}
		}
	}
	if missing > 0 {
		p.rep.warn("%d restored deprecations name a replacement this registry does not hold or has withdrawn: import the archive it is in, or deprecate them again", missing)
	}
	return nil
}
