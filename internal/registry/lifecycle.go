package registry

import (
	"context"
	"errors"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// MaxReplacementChain bounds the walk that looks for a replacement cycle:
// a deprecation is refused when following replacements from the new one
// takes more steps than this, so setting a status costs a few reads.
const MaxReplacementChain = 16

// Errors of a status change, each with its stable code.
var (
	ErrNotYourDocument = apperr.New(apperr.Forbidden, "not_your_document",
		"only the document's publisher or an administrator may change its status")
	ErrStatusNeedsToken = apperr.New(apperr.Unauthenticated, "missing_token",
		"changing a status needs an API token: send Authorization: Bearer <token>")
	ErrBadStatus = apperr.New(apperr.Invalid, "invalid_status",
		`a status is "active" or "deprecated"; withdrawal is DELETE /api/v1/protocols/{hash} with an admin token`)
	ErrReplacementSelf = apperr.New(apperr.Invalid, "replacement_is_self",
		"a document cannot be its own replacement")
	ErrUnknownReplacement = apperr.New(apperr.Invalid, "unknown_replacement",
		"the replacement is not stored in this registry: publish it first")
	ErrReplacementWithdrawn = apperr.New(apperr.Invalid, "replacement_withdrawn",
		"the replacement was withdrawn; name a document that is served")
	ErrReplacementCycle = apperr.New(apperr.Invalid, "replacement_cycle",
		"following the replacement's own replacements leads back to this document")
	ErrReplacementChain = apperr.Newf(apperr.Invalid, "replacement_chain_too_long",
		"the replacement's own replacements run more than %d steps; name the newest document", MaxReplacementChain)
	ErrActiveTakesNothing = apperr.New(apperr.Invalid, "invalid_status",
		"an active document has no message or replacement: send only {\"status\":\"active\"}")
)

// StatusRequest is a change of status asked over the API or the CLI.
type StatusRequest struct {
	Status      entity.Status
	Message     string
	Replacement *protocol.Digest
}

// actor names who acts with tok on a document of publisher.
func actor(tok entity.Token, publisher string) string {
	if tok.Publisher == publisher {
		return tok.Publisher
	}
	return "admin:" + tok.Name
}

// SetStatus deprecates a document or makes it active again, for its
// publisher or an administrator, and records the change.
func (s *Service) SetStatus(ctx context.Context, tok entity.Token, d protocol.Digest, r StatusRequest) (entity.Entry, error) {
	if tok.ID == 0 {
		return entity.Entry{}, ErrStatusNeedsToken
	}
	r.Message = CleanReason(r.Message)
	switch r.Status {
	case entity.StatusActive:
		if r.Message != "" || r.Replacement != nil {
			return entity.Entry{}, ErrActiveTakesNothing
		}
	case entity.StatusDeprecated:
	default:
		return entity.Entry{}, ErrBadStatus
	}
	e, err := s.store.Get(ctx, d, false)
	if err != nil {
		return entity.Entry{}, err
	}
	if !CanActFor(tok, e.Publisher) {
		return entity.Entry{}, ErrNotYourDocument.With("this document belongs to publisher " + e.Publisher +
			"; only its tokens or an administrator may change its status")
	}
	if r.Replacement != nil {
		// Checked and written under one lock: two deprecations naming each
		// other would each pass the check alone and make a cycle. (One
		// process only; replicas sharing PostgreSQL do not share it.)
		s.replacing.Lock()
		defer s.replacing.Unlock()
		if err := s.checkReplacement(ctx, d, *r.Replacement); err != nil {
			return entity.Entry{}, err
		}
	}
	return s.applyStatus(ctx, d, r, actor(tok, e.Publisher))
}

// applyStatus writes a checked change of status and keeps the raw path's
// caches in step with it.
func (s *Service) applyStatus(ctx context.Context, d protocol.Digest, r StatusRequest, actor string) (entity.Entry, error) {
	if r.Status == entity.StatusDeprecated {
		s.markInactive(d, false) // before: no blob answer without the headers
	}
	e, err := s.store.SetStatus(ctx, d, store.StatusChange{Status: r.Status, Message: r.Message,
		Replacement: r.Replacement, Actor: actor, Log: s.statusLogEvent(r)})
	s.cache.remove(d)
	if err != nil {
		return e, err
	}
	if r.Status == entity.StatusActive {
		s.markActive(d)
	} else {
		s.markInactive(d, false) // again: a reload may have read the store before the change
	}
	s.logChanged()
	return e, nil
}

// statusLogEvent is a deprecation's (or its undoing's) transparency-log
// event, which the store queues with the change (withdrawals it logs
// itself); nil when the registry runs without a log.
func (s *Service) statusLogEvent(r StatusRequest) *store.LogEvent {
	if s.cfg.Log == nil {
		return nil
	}
	ev := &store.LogEvent{Event: agora.LogEventReactivate, Status: string(r.Status), Reason: r.Message}
	if r.Status == entity.StatusDeprecated {
		ev.Event = agora.LogEventDeprecate
		if r.Replacement != nil {
			ev.Reason += " (replacement " + r.Replacement.Hex() + ")"
			ev.ReplacedBy = r.Replacement.Hex()
		}
	}
	return ev
}

// checkReplacement refuses a replacement that is d itself, not served
// here, or leads back to d through its own replacements.
func (s *Service) checkReplacement(ctx context.Context, d, repl protocol.Digest) error {
	if repl == d {
		return ErrReplacementSelf
	}
	next := repl
	for step := 0; ; step++ {
		e, err := s.store.Get(ctx, next, false)
		switch {
		case errors.Is(err, store.ErrNotFound) && step == 0:
			return ErrUnknownReplacement
		case errors.Is(err, store.ErrWithdrawn) && step == 0:
			return ErrReplacementWithdrawn
		case errors.Is(err, store.ErrNotFound), errors.Is(err, store.ErrWithdrawn):
			return nil // the chain ends at a document no longer served
		case err != nil:
			return err
		}
		r := e.Lifecycle.Replacement
		if e.Status() != entity.StatusDeprecated || r == nil {
			return nil
		}
		if *r == d {
			return ErrReplacementCycle
		}
		if step == MaxReplacementChain {
			return ErrReplacementChain
		}
		next = *r
	}
}

// Withdraw tombstones a document for an administrator, records it in the
// history and drops it from the cache; the reason is cleaned.
func (s *Service) Withdraw(ctx context.Context, tok entity.Token, d protocol.Digest, reason string) error {
	_, err := s.store.SetStatus(ctx, d, store.StatusChange{Status: entity.StatusWithdrawn,
		Message: CleanReason(reason), Actor: "admin:" + tok.Name})
	if err == nil {
		s.withdrawBlob(d)
	}
	s.cache.remove(d)
	if err == nil {
		s.logChanged() // the store queued the withdrawal's record
	}
	return err
}

// History lists a document's status changes (a withdrawn one's too).
func (s *Service) History(ctx context.Context, d protocol.Digest) ([]entity.HistoryEvent, error) {
	if _, err := s.store.Get(ctx, d, false); err != nil && !errors.Is(err, store.ErrWithdrawn) {
		return nil, err
	}
	return s.store.History(ctx, d)
}

// VersionList is a document's lineage as the versions endpoint and page
// show it.
type VersionList struct {
	// Lineage is oldest first; Latest is the index of the newest active
	// entry (-1 when every one is deprecated).
	Lineage []entity.Entry
	Latest  int
	// Claims are other publishers' documents that say they supersede this
	// one: listed apart, never in the lineage.
	Claims []entity.Entry
}

// VersionList reads e's lineage and the claims on it.
func (s *Service) VersionList(ctx context.Context, e entity.Entry) (VersionList, error) {
	lineage, err := s.store.Lineage(ctx, e.Digest)
	if err != nil {
		return VersionList{}, err
	}
	v := VersionList{Lineage: lineage, Latest: -1}
	for i := len(lineage) - 1; i >= 0; i-- {
		if lineage[i].Status() == entity.StatusActive {
			v.Latest = i
			break
		}
	}
	successors, err := s.store.Successors(ctx, e.Digest)
	if err != nil {
		return VersionList{}, err
	}
	for _, n := range successors {
		if n.Publisher != e.Publisher {
			v.Claims = append(v.Claims, n)
		}
	}
	return v, nil
}

// Catalog lists listed entries newest first by publisher and/or lineage
// heads.
func (s *Service) Catalog(ctx context.Context, q store.CatalogQuery) (store.Page, error) {
	return s.store.Catalog(ctx, q)
}
