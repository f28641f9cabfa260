package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

const agentColumns = `id, url, registered_at, last_crawled_at, last_seen_at, last_error, failures, next_crawl_at,
	name, description, kinds, well_known_url, supported_count, unsupported_count,
	agora_error, agora_failures, a2a_signature, a2a_skill_count, a2a_error, a2a_failures, ard_entry_count, ard_error, ard_failures`

func scanAgent(row pgx.Row) (entity.Agent, error) {
	var a entity.Agent
	err := row.Scan(&a.ID, &a.URL, &a.RegisteredAt, &a.LastCrawled, &a.LastSeen, &a.LastError, &a.Failures, &a.NextCrawl,
		&a.Name, &a.Description, &a.Kinds, &a.WellKnownURL, &a.SupportedCount, &a.UnsupportedCount,
		&a.Agora.Error, &a.Agora.Failures, &a.CardSignature, &a.CardSkillCount, &a.A2AState.Error, &a.A2AState.Failures,
		&a.ARDEntryCount, &a.ARDState.Error, &a.ARDState.Failures)
	a.RegisteredAt, a.NextCrawl = a.RegisteredAt.UTC(), a.NextCrawl.UTC()
	a.LastCrawled, a.LastSeen = entity.InUTC(a.LastCrawled), entity.InUTC(a.LastSeen)
	a.Kinds = store.NonNil(a.Kinds)
	return a, err
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
	ctx, cancel := s.op(ctx)
	defer cancel()
	var (
		id      int64
		created bool
	)
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `INSERT INTO agents (url, registered_at, next_crawl_at) VALUES ($1, $2, $3)
			ON CONFLICT (url) DO UPDATE SET url = EXCLUDED.url RETURNING id, (xmax = 0)`, url, at, next).Scan(&id, &created); err != nil {
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

// ReserveAgent returns the agent at r.URL, or adds it within the
// registrant's caps. An advisory lock per registrant makes the count and
// the insert one step across connections and replicas.
func (s *Store) ReserveAgent(ctx context.Context, r store.AgentReservation) (entity.Agent, bool, error) {
	if r.URL == "" || len(r.URL) > store.MaxAgentURLBytes {
		return entity.Agent{}, false, store.ErrInvalid.With("an agent URL is 1 to 2048 bytes")
	}
	ctx, cancel := s.op(ctx)
	defer cancel()
	var (
		id      int64
		created bool
	)
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('agora-registry agent registrant ' || $1))`, r.Registrant); err != nil {
			return err
		}
		err := tx.QueryRow(ctx, `SELECT id FROM agents WHERE url = $1`, r.URL).Scan(&id)
		if err == nil || !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		since := r.At.Add(-store.AgentRegistrationWindow)
		if _, err := tx.Exec(ctx, `DELETE FROM agent_registrations WHERE registered_at <= $1`, since); err != nil {
			return err
		}
		var day, total int
		if err := tx.QueryRow(ctx, `SELECT (SELECT count(*) FROM agent_registrations WHERE registrant = $1 AND registered_at > $2),
			(SELECT count(*) FROM agents WHERE registrant = $1 AND registrant <> '')`, r.Registrant, since).Scan(&day, &total); err != nil {
			return err
		}
		if err := r.CapError(day, total); err != nil {
			return err
		}
		err = tx.QueryRow(ctx, `INSERT INTO agents (url, registrant, registered_at, next_crawl_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (url) DO NOTHING RETURNING id`, r.URL, r.Registrant, r.At, r.Next).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) { // another registrant added it meanwhile
			return tx.QueryRow(ctx, `SELECT id FROM agents WHERE url = $1`, r.URL).Scan(&id)
		}
		if err != nil {
			return err
		}
		created = true
		_, err = tx.Exec(ctx, `INSERT INTO agent_registrations (registrant, registered_at) VALUES ($1, $2)`, r.Registrant, r.At)
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
	ctx, cancel := s.op(ctx)
	defer cancel()
	return mapErr(pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var url string
		// FOR UPDATE: two crawls of one agent write one after the other.
		err := tx.QueryRow(ctx, `SELECT url FROM agents WHERE id = $1 FOR UPDATE`, id).Scan(&url)
		if errors.Is(err, pgx.ErrNoRows) {
			return store.ErrAgentNotFound
		}
		if err != nil {
			return err
		}
		return writeCrawl(ctx, tx, id, url, at, crawl, next)
	}))
}

// writeCrawl writes a good crawl's state and replaces the agent's lists.
func writeCrawl(ctx context.Context, tx pgx.Tx, id int64, url string, at time.Time, c entity.AgentCrawl, next time.Time) error {
	v, err := store.CrawlColumnsOf(c)
	if err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `UPDATE agents SET name = $2, description = $3, kinds = $4, well_known_url = $5, text_key = $6,
		last_crawled_at = $7, last_seen_at = $7, last_error = '', failures = 0, next_crawl_at = $8,
		supported_count = $9, unsupported_count = $10,
		agora_error = $11, agora_failures = $12, a2a_card = $13::jsonb, a2a_signature = $14, a2a_skill_count = $15,
		a2a_error = $16, a2a_failures = $17, ard_manifest = $18::jsonb, ard_entry_count = $19, ard_error = $20, ard_failures = $21
		WHERE id = $1`,
		id, c.Name, c.Description, v.Kinds, c.WellKnownURL, store.AgentTextKey(url, c), at, next,
		len(c.Supported), len(c.Unsupported),
		c.Agora.Error, c.Agora.Failures, v.Card, v.Signature, v.Skills, c.A2AState.Error, c.A2AState.Failures,
		v.Manifest, v.Entries, c.ARDState.Error, c.ARDState.Failures); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `DELETE FROM agent_protocols WHERE agent_id = $1`, id); err != nil {
		return err
	}
	rows := make([][]any, 0, len(c.Supported)+len(c.Unsupported))
	for _, p := range c.Supported {
		rows = append(rows, []any{id, p.Digest[:], true, store.NonNil(p.Sources)})
	}
	for _, d := range c.Unsupported {
		rows = append(rows, []any{id, d[:], false, []string{}})
	}
	_, err = tx.CopyFrom(ctx, pgx.Identifier{"agent_protocols"}, []string{"agent_id", "digest", "supported", "sources"},
		pgx.CopyFromRows(rows))
	return err
}

// RecordCrawlFailure counts a failed crawl; the maxFailures-th removes the agent.
func (s *Store) RecordCrawlFailure(ctx context.Context, id int64, at time.Time, reason string, next time.Time, maxFailures int) (bool, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	var failures int
	err := s.pool.QueryRow(ctx, `UPDATE agents SET last_crawled_at = $2, last_error = $3, failures = failures + 1,
		next_crawl_at = $4 WHERE id = $1 RETURNING failures`, id, at, store.CheckAgentReason(reason), next).Scan(&failures)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, store.ErrAgentNotFound
	}
	if err != nil {
		return false, mapErr(err)
	}
	if maxFailures > 0 && failures >= maxFailures {
		_, err := s.pool.Exec(ctx, `DELETE FROM agents WHERE id = $1`, id)
		return err == nil, mapErr(err)
	}
	return false, nil
}

// GetAgent returns one agent with its lists.
func (s *Store) GetAgent(ctx context.Context, id int64) (entity.Agent, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	a, err := scanAgent(s.pool.QueryRow(ctx, `SELECT `+agentColumns+` FROM agents WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return entity.Agent{}, store.ErrAgentNotFound
	}
	if err != nil {
		return entity.Agent{}, mapErr(err)
	}
	var card, manifest []byte
	if err := s.pool.QueryRow(ctx, `SELECT a2a_card::text, ard_manifest::text FROM agents WHERE id = $1`, id).Scan(&card, &manifest); err != nil {
		return entity.Agent{}, mapErr(err)
	}
	if a.A2A, err = store.ParseDialect[entity.AgentCard](card); err != nil {
		return entity.Agent{}, fmt.Errorf("postgres: corrupt agent card of agent %d", id)
	}
	if a.ARD, err = store.ParseDialect[entity.AgentManifest](manifest); err != nil {
		return entity.Agent{}, fmt.Errorf("postgres: corrupt ARD manifest of agent %d", id)
	}
	rows, _ := s.pool.Query(ctx, `SELECT digest, supported, sources FROM agent_protocols WHERE agent_id = $1 ORDER BY digest`, id)
	a.Supported, a.Unsupported = []entity.AgentProtocol{}, []protocol.Digest{}
	var (
		raw       []byte
		supported bool
		sources   []string
	)
	_, err = pgx.ForEachRow(rows, []any{&raw, &supported, &sources}, func() error {
		d, err := digestOf(raw)
		if supported {
			a.Supported = append(a.Supported, entity.AgentProtocol{Digest: d, Sources: sources})
		} else {
			a.Unsupported = append(a.Unsupported, d)
		}
		return err
	})
	return a, mapErr(err)
}

// ListAgents lists agents by id with keyset pagination.
func (s *Store) ListAgents(ctx context.Context, q store.AgentQuery) (store.AgentPage, error) {
	q, after, err := q.Normalize()
	if err != nil {
		return store.AgentPage{}, err
	}
	ctx, cancel := s.op(ctx)
	defer cancel()
	var speaks []byte
	if q.Speaks != nil {
		speaks = q.Speaks[:]
	}
	rows, err := s.pool.Query(ctx, `SELECT `+agentColumns+` FROM agents a WHERE id > $1
		AND ($2::bytea IS NULL OR EXISTS (SELECT 1 FROM agent_protocols p WHERE p.agent_id = a.id AND p.digest = $2 AND p.supported))
		AND ($3 = '' OR $3 = ANY (kinds))
		AND ($4 = '' OR text_key LIKE $5) AND last_seen_at IS NOT NULL
		AND ($7 = '' OR $7 = 'agora' AND well_known_url <> '' OR $7 = 'a2a' AND a2a_signature <> '' OR $7 = 'ard' AND ard_entry_count >= 0)
		ORDER BY id LIMIT $6`, after, speaks, q.Kind, q.Text, store.LikePattern(q.Text), q.Limit+1, q.Dialect)
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
	ctx, cancel := s.op(ctx)
	defer cancel()
	var out store.ProtocolAgents
	for _, side := range []struct {
		supported bool
		list      *[]entity.Agent
		count     *int
	}{{true, &out.Speaking, &out.SpeakingCount}, {false, &out.Refusing, &out.RefusingCount}} {
		if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM agent_protocols WHERE digest = $1 AND supported = $2`,
			d[:], side.supported).Scan(side.count); err != nil {
			return out, mapErr(err)
		}
		rows, err := s.pool.Query(ctx, `SELECT `+agentColumns+` FROM agents WHERE id IN (
			SELECT agent_id FROM agent_protocols WHERE digest = $1 AND supported = $2 ORDER BY agent_id LIMIT $3) ORDER BY id`,
			d[:], side.supported, store.MaxAgentsPerProtocol)
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
	err := func() error {
		ctx, cancel := s.op(ctx)
		defer cancel()
		return s.pool.QueryRow(ctx, `SELECT id FROM agents WHERE url = $1 AND last_seen_at IS NOT NULL`, url).Scan(&id)
	}()
	if errors.Is(err, pgx.ErrNoRows) {
		return entity.Agent{}, store.ErrAgentNotFound
	}
	if err != nil {
		return entity.Agent{}, mapErr(err)
	}
	return s.GetAgent(ctx, id)
}

// CountAgents counts the listed agents.
func (s *Store) CountAgents(ctx context.Context) (int, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	var n int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM agents WHERE last_seen_at IS NOT NULL`).Scan(&n)
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
	ctx, cancel := s.op(ctx)
	defer cancel()
	rows, _ := s.pool.Query(ctx, `SELECT digest, count(*) FROM agent_protocols WHERE digest = ANY ($1) AND supported GROUP BY digest`, digestKeys(ds))
	var (
		b []byte
		n int
	)
	_, err := pgx.ForEachRow(rows, []any{&b, &n}, func() error {
		d, err := digestOf(b)
		out[d] = n
		return err
	})
	return out, mapErr(err)
}

// DueAgents lists the agents whose crawl is due, most overdue first.
func (s *Store) DueAgents(ctx context.Context, now time.Time, limit int) ([]store.DueAgent, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	rows, _ := s.pool.Query(ctx, `SELECT id, url FROM agents WHERE next_crawl_at <= $1 ORDER BY next_crawl_at, id LIMIT $2`, now, limit)
	return collect(rows, func(r pgx.Row) (a store.DueAgent, err error) {
		err = r.Scan(&a.ID, &a.URL)
		return a, err
	})
}

// digestKeys are ds as bytea parameters.
func digestKeys(ds []protocol.Digest) [][]byte {
	keys := make([][]byte, len(ds))
	for i := range ds {
		keys[i] = ds[i][:]
	}
	return keys
}

// digestOf reads a stored digest column.
func digestOf(b []byte) (protocol.Digest, error) {
	if len(b) != protocol.DigestSize {
		return protocol.Digest{}, fmt.Errorf("postgres: a stored digest has %d bytes", len(b))
	}
	return protocol.Digest(b), nil
}
