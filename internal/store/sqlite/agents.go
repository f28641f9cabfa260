package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

const agentColumns = `id, url, registered_at, last_crawled_at, last_seen_at, last_error, failures, next_crawl_at,
	name, description, kinds, well_known_url, supported_count, unsupported_count,
	agora_error, agora_failures, a2a_signature, a2a_skill_count, a2a_error, a2a_failures, ard_entry_count, ard_error, ard_failures`

func scanAgent(sc scanner) (entity.Agent, error) {
	var (
		a                entity.Agent
		registered, next int64
		crawled, seen    sql.NullInt64
		kinds            string
	)
	if err := sc.Scan(&a.ID, &a.URL, &registered, &crawled, &seen, &a.LastError, &a.Failures, &next,
		&a.Name, &a.Description, &kinds, &a.WellKnownURL, &a.SupportedCount, &a.UnsupportedCount,
		&a.Agora.Error, &a.Agora.Failures, &a.CardSignature, &a.CardSkillCount, &a.A2AState.Error, &a.A2AState.Failures,
		&a.ARDEntryCount, &a.ARDState.Error, &a.ARDState.Failures); err != nil {
		return entity.Agent{}, err
	}
	a.RegisteredAt, a.NextCrawl = fromMicros(registered), fromMicros(next)
	a.LastCrawled, a.LastSeen = nullMicros(crawled), nullMicros(seen)
	if err := json.Unmarshal([]byte(kinds), &a.Kinds); err != nil {
		return entity.Agent{}, fmt.Errorf("corrupt kinds of agent %d", a.ID)
	}
	a.Kinds = store.NonNil(a.Kinds)
	return a, nil
}

func nullMicros(v sql.NullInt64) *time.Time {
	if !v.Valid {
		return nil
	}
	t := fromMicros(v.Int64)
	return &t
}

// RegisterAgent inserts the agent, or records the crawl on the one already
// registered at url.
func (s *Store) RegisterAgent(ctx context.Context, url string, at time.Time, crawl entity.AgentCrawl, next time.Time) (entity.Agent, bool, error) {
	if err := store.CheckCrawl(crawl); err != nil {
		return entity.Agent{}, false, err
	}
	if url == "" || len(url) > store.MaxAgentURLBytes {
		return entity.Agent{}, false, store.ErrInvalid.With("an agent URL is 1 to 2048 bytes")
	}
	var (
		id      int64
		created bool
	)
	err := s.inWriteTx(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `SELECT id FROM agents WHERE url = ?`, url).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			created = true
			err = tx.QueryRowContext(ctx, `INSERT INTO agents (url, registered_at, next_crawl_at) VALUES (?, ?, ?) RETURNING id`,
				url, at.UnixMicro(), next.UnixMicro()).Scan(&id)
		}
		if err != nil {
			return err
		}
		return writeCrawl(ctx, tx, id, url, at, crawl, next)
	})
	if err != nil {
		return entity.Agent{}, false, mapErr(err)
	}
	a, err := s.GetAgent(ctx, id)
	return a, created, err
}

// agentCapsQuery counts a registrant's new agents since a time and its
// agents; both read an index (the second names the partial index's
// condition, which a bound parameter alone cannot prove).
const agentCapsQuery = `SELECT (SELECT count(*) FROM agent_registrations WHERE registrant = ? AND registered_at > ?),
	(SELECT count(*) FROM agents WHERE registrant = ? AND registrant <> '')`

// ReserveAgent returns the agent at r.URL, or adds it within the
// registrant's caps (one write transaction: writes are serialised).
func (s *Store) ReserveAgent(ctx context.Context, r store.AgentReservation) (entity.Agent, bool, error) {
	if r.URL == "" || len(r.URL) > store.MaxAgentURLBytes {
		return entity.Agent{}, false, store.ErrInvalid.With("an agent URL is 1 to 2048 bytes")
	}
	var (
		id      int64
		created bool
	)
	err := s.inWriteTx(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `SELECT id FROM agents WHERE url = ?`, r.URL).Scan(&id)
		if err == nil || !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		since := r.At.Add(-store.AgentRegistrationWindow).UnixMicro()
		if _, err := tx.ExecContext(ctx, `DELETE FROM agent_registrations WHERE registered_at <= ?`, since); err != nil {
			return err
		}
		var day, total int
		if err := tx.QueryRowContext(ctx, agentCapsQuery, r.Registrant, since, r.Registrant).Scan(&day, &total); err != nil {
			return err
		}
		if err := r.CapError(day, total); err != nil {
			return err
		}
		if err := tx.QueryRowContext(ctx, `INSERT INTO agents (url, registrant, registered_at, next_crawl_at) VALUES (?, ?, ?, ?) RETURNING id`,
			r.URL, r.Registrant, r.At.UnixMicro(), r.Next.UnixMicro()).Scan(&id); err != nil {
			return err
		}
		created = true
		_, err = tx.ExecContext(ctx, `INSERT INTO agent_registrations (registrant, registered_at) VALUES (?, ?)`, r.Registrant, r.At.UnixMicro())
		return err
	})
	if err != nil {
		return entity.Agent{}, false, mapErr(err)
	}
	a, err := s.GetAgent(ctx, id)
	return a, created, err
}

// RecordCrawl replaces an agent's state with a good crawl.
func (s *Store) RecordCrawl(ctx context.Context, id int64, at time.Time, crawl entity.AgentCrawl, next time.Time) error {
	if err := store.CheckCrawl(crawl); err != nil {
		return err
	}
	return mapErr(s.inWriteTx(ctx, func(tx *sql.Tx) error {
		var url string
		err := tx.QueryRowContext(ctx, `SELECT url FROM agents WHERE id = ?`, id).Scan(&url)
		if errors.Is(err, sql.ErrNoRows) {
			return store.ErrAgentNotFound
		}
		if err != nil {
			return err
		}
		return writeCrawl(ctx, tx, id, url, at, crawl, next)
	}))
}

// writeCrawl writes a good crawl's state and replaces the agent's lists.
func writeCrawl(ctx context.Context, tx *sql.Tx, id int64, url string, at time.Time, c entity.AgentCrawl, next time.Time) error {
	v, err := store.CrawlColumnsOf(c)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE agents SET name = ?, description = ?, kinds = ?, well_known_url = ?, text_key = ?,
		last_crawled_at = ?, last_seen_at = ?, last_error = '', failures = 0, next_crawl_at = ?,
		supported_count = ?, unsupported_count = ?,
		agora_error = ?, agora_failures = ?, a2a_card = ?, a2a_signature = ?, a2a_skill_count = ?, a2a_error = ?, a2a_failures = ?,
		ard_manifest = ?, ard_entry_count = ?, ard_error = ?, ard_failures = ? WHERE id = ?`,
		c.Name, c.Description, jsonText(v.Kinds), c.WellKnownURL, store.AgentTextKey(url, c), at.UnixMicro(), at.UnixMicro(),
		next.UnixMicro(), len(c.Supported), len(c.Unsupported),
		c.Agora.Error, c.Agora.Failures, v.Card, v.Signature, v.Skills, c.A2AState.Error, c.A2AState.Failures,
		v.Manifest, v.Entries, c.ARDState.Error, c.ARDState.Failures, id); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM agent_protocols WHERE agent_id = ?`, id); err != nil {
		return err
	}
	ins, err := tx.PrepareContext(ctx, `INSERT INTO agent_protocols (agent_id, hex, supported, sources) VALUES (?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer ins.Close()
	for _, p := range c.Supported {
		if _, err := ins.ExecContext(ctx, id, p.Digest.Hex(), 1, jsonText(store.NonNil(p.Sources))); err != nil {
			return err
		}
	}
	for _, d := range c.Unsupported {
		if _, err := ins.ExecContext(ctx, id, d.Hex(), 0, "[]"); err != nil {
			return err
		}
	}
	return nil
}

// RecordCrawlFailure counts a failed crawl; the maxFailures-th removes the agent.
func (s *Store) RecordCrawlFailure(ctx context.Context, id int64, at time.Time, reason string, next time.Time, maxFailures int) (bool, error) {
	removed := false
	err := s.inWriteTx(ctx, func(tx *sql.Tx) error {
		var failures int
		err := tx.QueryRowContext(ctx, `UPDATE agents SET last_crawled_at = ?, last_error = ?, failures = failures + 1,
			next_crawl_at = ? WHERE id = ? RETURNING failures`, at.UnixMicro(), store.CheckAgentReason(reason), next.UnixMicro(), id).Scan(&failures)
		if errors.Is(err, sql.ErrNoRows) {
			return store.ErrAgentNotFound
		}
		if err != nil {
			return err
		}
		if maxFailures > 0 && failures >= maxFailures {
			_, err = tx.ExecContext(ctx, `DELETE FROM agents WHERE id = ?`, id)
			removed = err == nil
		}
		return err
	})
	return removed, mapErr(err)
}

// GetAgent returns one agent with its lists.
func (s *Store) GetAgent(ctx context.Context, id int64) (entity.Agent, error) {
	a, err := scanAgent(s.read.QueryRowContext(ctx, `SELECT `+agentColumns+` FROM agents WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return entity.Agent{}, store.ErrAgentNotFound
	}
	if err != nil {
		return entity.Agent{}, mapErr(err)
	}
	var card, manifest sql.NullString
	if err := s.read.QueryRowContext(ctx, `SELECT a2a_card, ard_manifest FROM agents WHERE id = ?`, id).Scan(&card, &manifest); err != nil {
		return entity.Agent{}, mapErr(err)
	}
	if a.A2A, err = store.ParseDialect[entity.AgentCard]([]byte(card.String)); err != nil {
		return entity.Agent{}, fmt.Errorf("corrupt agent card of agent %d", id)
	}
	if a.ARD, err = store.ParseDialect[entity.AgentManifest]([]byte(manifest.String)); err != nil {
		return entity.Agent{}, fmt.Errorf("corrupt ARD manifest of agent %d", id)
	}
	rows, err := s.read.QueryContext(ctx, `SELECT hex, supported, sources FROM agent_protocols WHERE agent_id = ? ORDER BY hex`, id)
	a.Supported, a.Unsupported = []entity.AgentProtocol{}, []protocol.Digest{}
	var (
		hex, sources string
		supported    bool
	)
	err = each(rows, err, []any{&hex, &supported, &sources}, func() error {
		d, err := protocol.ParseDigest(hex)
		if err != nil {
			return fmt.Errorf("corrupt hash of agent %d", id)
		}
		if !supported {
			a.Unsupported = append(a.Unsupported, d)
			return nil
		}
		p := entity.AgentProtocol{Digest: d}
		if err := json.Unmarshal([]byte(sources), &p.Sources); err != nil {
			return fmt.Errorf("corrupt sources of agent %d", id)
		}
		a.Supported = append(a.Supported, p)
		return nil
	})
	if err != nil {
		return entity.Agent{}, err
	}
	return a, nil
}

// ListAgents lists agents by id with keyset pagination.
func (s *Store) ListAgents(ctx context.Context, q store.AgentQuery) (store.AgentPage, error) {
	q, after, err := q.Normalize()
	if err != nil {
		return store.AgentPage{}, err
	}
	var (
		where = []string{"id > ?", "last_seen_at IS NOT NULL"}
		args  = []any{after}
	)
	if q.Speaks != nil {
		where = append(where, `EXISTS (SELECT 1 FROM agent_protocols p WHERE p.agent_id = a.id AND p.hex = ? AND p.supported = 1)`)
		args = append(args, q.Speaks.Hex())
	}
	if q.Kind != "" {
		where = append(where, `EXISTS (SELECT 1 FROM json_each(a.kinds) WHERE value = ?)`)
		args = append(args, q.Kind)
	}
	switch q.Dialect {
	case entity.DialectAgora:
		where = append(where, `well_known_url <> ''`)
	case entity.DialectA2A:
		where = append(where, `a2a_signature <> ''`)
	case entity.DialectARD:
		where = append(where, `ard_entry_count >= 0`)
	}
	if q.Text != "" {
		where = append(where, `text_key LIKE ? ESCAPE '\'`)
		args = append(args, store.LikePattern(q.Text))
	}
	args = append(args, q.Limit+1)
	rows, err := s.read.QueryContext(ctx, `SELECT `+agentColumns+` FROM agents a WHERE `+strings.Join(where, " AND ")+
		` ORDER BY id LIMIT ?`, args...)
	if err != nil {
		return store.AgentPage{}, mapErr(err)
	}
	agents, err := collect(rows, scanAgent)
	if err != nil {
		return store.AgentPage{}, err
	}
	return store.PageAgents(agents, q.Limit), nil
}

// AgentsFor lists who speaks and who refuses d.
func (s *Store) AgentsFor(ctx context.Context, d protocol.Digest) (store.ProtocolAgents, error) {
	var out store.ProtocolAgents
	for _, side := range []struct {
		supported int
		list      *[]entity.Agent
		count     *int
	}{{1, &out.Speaking, &out.SpeakingCount}, {0, &out.Refusing, &out.RefusingCount}} {
		if err := s.read.QueryRowContext(ctx, `SELECT count(*) FROM agent_protocols WHERE hex = ? AND supported = ?`,
			d.Hex(), side.supported).Scan(side.count); err != nil {
			return out, mapErr(err)
		}
		rows, err := s.read.QueryContext(ctx, `SELECT `+agentColumns+` FROM agents WHERE id IN (
			SELECT agent_id FROM agent_protocols WHERE hex = ? AND supported = ? ORDER BY agent_id LIMIT ?) ORDER BY id`,
			d.Hex(), side.supported, store.MaxAgentsPerProtocol)
		if err != nil {
			return out, mapErr(err)
		}
		if *side.list, err = collect(rows, scanAgent); err != nil {
			return out, err
		}
	}
	return out, nil
}

// AgentByURL returns the listed agent at url.
func (s *Store) AgentByURL(ctx context.Context, url string) (entity.Agent, error) {
	var id int64
	err := s.read.QueryRowContext(ctx, `SELECT id FROM agents WHERE url = ? AND last_seen_at IS NOT NULL`, url).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return entity.Agent{}, store.ErrAgentNotFound
	}
	if err != nil {
		return entity.Agent{}, mapErr(err)
	}
	return s.GetAgent(ctx, id)
}

// CountAgents counts the listed agents.
func (s *Store) CountAgents(ctx context.Context) (int, error) {
	var n int
	err := s.read.QueryRowContext(ctx, `SELECT count(*) FROM agents WHERE last_seen_at IS NOT NULL`).Scan(&n)
	return n, mapErr(err)
}

// SpeakerCounts counts the agents speaking each of ds.
func (s *Store) SpeakerCounts(ctx context.Context, ds []protocol.Digest) (map[protocol.Digest]int, error) {
	if len(ds) > store.MaxResolve {
		return nil, store.ErrInvalid.With("too many digests")
	}
	out := make(map[protocol.Digest]int, len(ds))
	if len(ds) == 0 {
		return out, nil
	}
	rows, err := s.read.QueryContext(ctx, `SELECT hex, count(*) FROM agent_protocols
		WHERE hex IN (SELECT value FROM json_each(?)) AND supported = 1 GROUP BY hex`, hexJSON(ds))
	var (
		hex string
		n   int
	)
	return out, each(rows, err, []any{&hex, &n}, func() error {
		d, err := protocol.ParseDigest(hex)
		if err != nil {
			return fmt.Errorf("corrupt agent hash %q", hex)
		}
		out[d] = n
		return nil
	})
}

// DueAgents lists the agents whose crawl is due, most overdue first.
func (s *Store) DueAgents(ctx context.Context, now time.Time, limit int) ([]store.DueAgent, error) {
	return queryAll(ctx, s.read, func(sc scanner) (a store.DueAgent, err error) {
		err = sc.Scan(&a.ID, &a.URL)
		return a, err
	}, `SELECT id, url FROM agents WHERE next_crawl_at <= ? ORDER BY next_crawl_at, id LIMIT ?`, now.UnixMicro(), limit)
}
