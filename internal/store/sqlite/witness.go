package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/agora-registry/registry/internal/store"
)

// LockWitnesses takes the process's witness lock: one SQLite file is
// served by one process (several replicas share PostgreSQL).
func (s *Store) LockWitnesses(context.Context) (func(), bool, error) {
	if !s.witnessMu.TryLock() {
		return nil, false, nil
	}
	return s.witnessMu.Unlock, true, nil
}

// WitnessStates returns every witness's state.
func (s *Store) WitnessStates(ctx context.Context) ([]store.WitnessState, error) {
	return queryAll(ctx, s.read, func(sc scanner) (w store.WitnessState, err error) {
		err = sc.Scan(&w.Key, &w.Size, &w.CosignedSize, &w.Cosignature)
		return w, err
	}, `SELECT witness_key, size, cosigned_size, cosignature FROM log_witnesses ORDER BY witness_key`)
}

// SaveWitnessState stores a witness's state.
func (s *Store) SaveWitnessState(ctx context.Context, w store.WitnessState) error {
	if err := store.CheckWitnessState(w); err != nil {
		return err
	}
	return s.inWriteTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO log_witnesses (witness_key, size, cosigned_size, cosignature, updated_at) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (witness_key) DO UPDATE SET size = excluded.size, cosigned_size = excluded.cosigned_size,
			cosignature = excluded.cosignature, updated_at = excluded.updated_at`,
			w.Key, w.Size, w.CosignedSize, w.Cosignature, time.Now().UnixMicro())
		return err
	})
}
