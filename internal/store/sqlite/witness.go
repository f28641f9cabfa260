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
	rows, err := s.read.QueryContext(ctx, `SELECT witness_key, size, cosigned_size, cosignature FROM log_witnesses ORDER BY witness_key`)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	var out []store.WitnessState
	for rows.Next() {
		var w store.WitnessState
		if err := rows.Scan(&w.Key, &w.Size, &w.CosignedSize, &w.Cosignature); err != nil {
			return nil, mapErr(err)
		}
		out = append(out, w)
	}
	return out, mapErr(rows.Err())
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
