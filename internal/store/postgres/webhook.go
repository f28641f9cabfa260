package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/store"
)

const webhookColumns = `id, url, secret, events, delivered, attempts, failing_since, next_at, created_at`

func scanWebhooks(rows pgx.Rows) ([]entity.Webhook, error) {
	return collect(rows, func(r pgx.Row) (w entity.Webhook, err error) {
		err = r.Scan(&w.ID, &w.URL, &w.Secret, &w.Events, &w.Delivered, &w.Attempts, &w.FailingSince, &w.NextAt, &w.CreatedAt)
		return w, err
	})
}

// CreateWebhook registers a webhook.
func (s *Store) CreateWebhook(ctx context.Context, url, secret string, events []string, from int64) (entity.Webhook, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	rows, err := s.pool.Query(ctx, `INSERT INTO webhooks (url, secret, events, delivered) VALUES ($1, $2, $3, $4) RETURNING `+webhookColumns,
		url, secret, events, from)
	if err != nil {
		return entity.Webhook{}, mapErr(err)
	}
	ws, err := scanWebhooks(rows)
	if err != nil || len(ws) != 1 {
		return entity.Webhook{}, err
	}
	return ws[0], nil
}

// ListWebhooks lists the webhooks, oldest first.
func (s *Store) ListWebhooks(ctx context.Context) ([]entity.Webhook, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	rows, err := s.pool.Query(ctx, `SELECT `+webhookColumns+` FROM webhooks ORDER BY id`)
	if err != nil {
		return nil, mapErr(err)
	}
	return scanWebhooks(rows)
}

// DeleteWebhook removes a webhook.
func (s *Store) DeleteWebhook(ctx context.Context, id int64) error {
	ctx, cancel := s.op(ctx)
	defer cancel()
	tag, err := s.pool.Exec(ctx, `DELETE FROM webhooks WHERE id = $1`, id)
	if err != nil {
		return mapErr(err)
	}
	if tag.RowsAffected() == 0 {
		return store.ErrNotFound
	}
	return nil
}

// ClaimWebhooks leases the due webhooks.
func (s *Store) ClaimWebhooks(ctx context.Context, now time.Time, lease time.Duration) ([]entity.Webhook, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	rows, err := s.pool.Query(ctx, `WITH claimed AS (UPDATE webhooks SET lease_until = $2
		WHERE id IN (SELECT id FROM webhooks WHERE next_at <= $1 AND lease_until <= $1 FOR UPDATE SKIP LOCKED)
		RETURNING `+webhookColumns+`) SELECT * FROM claimed ORDER BY id`, now, now.Add(lease))
	if err != nil {
		return nil, mapErr(err)
	}
	return scanWebhooks(rows)
}

// SaveWebhookProgress stores a webhook's cursor and ends its lease.
func (s *Store) SaveWebhookProgress(ctx context.Context, w entity.Webhook) error {
	ctx, cancel := s.op(ctx)
	defer cancel()
	_, err := s.pool.Exec(ctx, `UPDATE webhooks SET delivered = $2, attempts = $3, failing_since = $4, next_at = $5, lease_until = '-infinity'
		WHERE id = $1`, w.ID, w.Delivered, w.Attempts, w.FailingSince, w.NextAt)
	return mapErr(err)
}
