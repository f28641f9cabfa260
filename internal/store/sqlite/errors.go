package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/store"
)

// mapErr classifies a driver error so no raw driver error reaches callers:
// a locked, unopenable, full or failing file is ErrUnavailable (retry
// later); a cancelled context stays itself; the rest is internal.
func mapErr(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || apperr.As(err) != nil {
		return err
	}
	if errors.Is(err, sql.ErrConnDone) || errors.Is(err, sql.ErrTxDone) {
		return apperr.Wrap(store.ErrUnavailable.Kind, store.ErrUnavailable.Code, store.ErrUnavailable.Message, err)
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff { // the primary result code
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_IOERR,
			sqlite3.SQLITE_FULL, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_PROTOCOL, sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT:
			return apperr.Wrap(store.ErrUnavailable.Kind, store.ErrUnavailable.Code, store.ErrUnavailable.Message, err)
		}
	}
	if err.Error() == "sql: database is closed" {
		return apperr.Wrap(store.ErrUnavailable.Kind, store.ErrUnavailable.Code, store.ErrUnavailable.Message, err)
	}
	return apperr.Wrap(apperr.Internal, "internal", "unexpected database error", err)
}

// isConstraint reports a UNIQUE/PRIMARY KEY violation.
func isConstraint(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_CONSTRAINT
}
