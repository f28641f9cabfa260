package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"slices"
	"time"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/store"
)

const webhookColumns = `id, url, secret, events, delivered, attempts, failing_since, next_at, created_at`

func scanWebhooks(rows *sql.Rows) ([]entity.Webhook, error) {
	return collect(rows, func(sc scanner) (w entity.Webhook, err error) {
		var (
			events        string
			failing       sql.NullInt64
			next, created int64
		)
		if err := sc.Scan(&w.ID, &w.URL, &w.Secret, &events, &w.Delivered, &w.Attempts, &failing, &next, &created); err != nil {
			return w, err
		}
		if failing.Valid {
			t := time.UnixMicro(failing.Int64)
			w.FailingSince = &t
		}
		w.NextAt, w.CreatedAt = time.UnixMicro(next), time.UnixMicro(created)
		err = json.Unmarshal([]byte(events), &w.Events)
		return w, err
	})
}

// CreateWebhook registers a webhook.
func (s *Store) CreateWebhook(ctx context.Context, url, secret string, events []string, from int64) (entity.Webhook, error) {
	var ws []entity.Webhook
	err := s.inWriteTx(ctx, func(tx *sql.Tx) error {
		now := time.Now().UnixMicro()
		rows, err := tx.QueryContext(ctx, `INSERT INTO webhooks (url, secret, events, delivered, next_at, created_at) VALUES (?, ?, ?, ?, ?, ?)
			RETURNING `+webhookColumns, url, secret, jsonText(events), from, now, now)
		if err != nil {
			return err
		}
		ws, err = scanWebhooks(rows)
		return err
	})
	if err != nil || len(ws) != 1 {
		return entity.Webhook{}, err
	}
	return ws[0], nil
}

// ListWebhooks lists the webhooks, oldest first.
func (s *Store) ListWebhooks(ctx context.Context) ([]entity.Webhook, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+webhookColumns+` FROM webhooks ORDER BY id`)
	if err != nil {
		return nil, mapErr(err)
	}
	return scanWebhooks(rows)
}

// DeleteWebhook removes a webhook.
func (s *Store) DeleteWebhook(ctx context.Context, id int64) error {
	return s.inWriteTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM webhooks WHERE id = ?`, id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			if err == nil {
				err = store.ErrNotFound
			}
			return err
		}
		return nil
	})
}

// ClaimWebhooks leases the due webhooks.
func (s *Store) ClaimWebhooks(ctx context.Context, now time.Time, lease time.Duration) ([]entity.Webhook, error) {
	var ws []entity.Webhook
	err := s.inWriteTx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `UPDATE webhooks SET lease_until = ? WHERE next_at <= ? AND lease_until <= ? RETURNING `+webhookColumns,
			now.Add(lease).UnixMicro(), now.UnixMicro(), now.UnixMicro())
		if err != nil {
			return err
		}
		ws, err = scanWebhooks(rows)
		return err
	})
	slices.SortFunc(ws, func(a, b entity.Webhook) int { return cmp.Compare(a.ID, b.ID) }) // RETURNING has no order
	return ws, err
}

// SaveWebhookProgress stores a webhook's cursor and ends its lease.
func (s *Store) SaveWebhookProgress(ctx context.Context, w entity.Webhook) error {
	var failing any
	if w.FailingSince != nil {
		failing = w.FailingSince.UnixMicro()
	}
	return s.inWriteTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE webhooks SET delivered = ?, attempts = ?, failing_since = ?, next_at = ?, lease_until = 0 WHERE id = ?`,
			w.Delivered, w.Attempts, failing, w.NextAt.UnixMicro(), w.ID)
		return err
	})
}
