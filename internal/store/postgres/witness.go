package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agora-registry/registry/internal/store"
)

// witnessLockKey is the advisory lock held by the one process talking to
// the log's witnesses ("agoraWIT"), the integrator's mechanism (logLockKey)
// held per session for one round of requests instead of per transaction,
// so no transaction stays open while a witness answers.
const witnessLockKey int64 = 0x61676f7261574954

// LockWitnesses takes the witness lock on a connection of its own.
func (s *Store) LockWitnesses(ctx context.Context) (func(), bool, error) {
	octx, cancel := s.op(ctx)
	defer cancel()
	conn, err := s.pool.Acquire(octx)
	if err != nil {
		return nil, false, mapErr(err)
	}
	var ok bool
	if err := conn.QueryRow(octx, `SELECT pg_try_advisory_lock($1)`, witnessLockKey).Scan(&ok); err != nil || !ok {
		conn.Release()
		return nil, false, mapErr(err)
	}
	return func() {
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if _, err := conn.Exec(uctx, `SELECT pg_advisory_unlock($1)`, witnessLockKey); err != nil {
			// Ending the session is the other way to release the lock.
			_ = conn.Conn().Close(uctx)
		}
		conn.Release()
	}, true, nil
}

// WitnessStates returns every witness's state.
func (s *Store) WitnessStates(ctx context.Context) ([]store.WitnessState, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	rows, _ := s.pool.Query(ctx, `SELECT witness_key, size, cosigned_size, cosignature FROM log_witnesses ORDER BY witness_key`)
	return collect(rows, func(r pgx.Row) (w store.WitnessState, err error) {
		err = r.Scan(&w.Key, &w.Size, &w.CosignedSize, &w.Cosignature)
		return w, err
	})
}

// SaveWitnessState stores a witness's state.
func (s *Store) SaveWitnessState(ctx context.Context, w store.WitnessState) error {
	if err := store.CheckWitnessState(w); err != nil {
		return err
	}
	ctx, cancel := s.op(ctx)
	defer cancel()
	_, err := s.pool.Exec(ctx, `INSERT INTO log_witnesses (witness_key, size, cosigned_size, cosignature) VALUES ($1, $2, $3, $4)
		ON CONFLICT (witness_key) DO UPDATE SET size = $2, cosigned_size = $3, cosignature = $4, updated_at = now()`,
		w.Key, w.Size, w.CosignedSize, w.Cosignature)
	return mapErr(err)
}
