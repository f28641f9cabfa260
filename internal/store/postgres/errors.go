package postgres

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/store"
)

// mapErr classifies a database error: outages become store.ErrUnavailable
// (the API answers 503 and the caller may retry), bad input becomes
// store.ErrInvalid, everything else stays an internal error. The cause is
// kept for logs (errors.Is/As still reach it).
func mapErr(err error) error {
	if err == nil {
		return nil
	}
	if apperr.As(err) != nil {
		return err
	}
	// Failing to connect at all is an outage whatever the server said
	// (e.g. SQLSTATE 55000 "not currently accepting connections"), unless
	// it said the URL is wrong: waiting would not fix that.
	var connectErr *pgconn.ConnectError
	if errors.As(err, &connectErr) {
		if misconfigured := misconfiguration(err); misconfigured != nil {
			return misconfigured
		}
		return unavailable(err)
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return mapPgError(pgErr, err)
	}
	if isConnectionError(err) {
		return unavailable(err)
	}
	return apperr.Wrap(apperr.Internal, "database_error", "unexpected database error", err)
}

func mapPgError(pgErr *pgconn.PgError, err error) error {
	code := pgErr.Code
	switch {
	case strings.HasPrefix(code, "08"), // connection exception
		strings.HasPrefix(code, "53"),    // insufficient resources (too many connections, disk full, out of memory)
		strings.HasPrefix(code, "57P"),   // admin/crash shutdown, cannot connect now
		code == "57014",                  // query canceled (statement timeout)
		code == "40001", code == "40P01", // serialization failure, deadlock: retryable
		code == "55P03",               // lock not available
		strings.HasPrefix(code, "58"), // system error (I/O)
		code == "25006":               // read-only transaction (a standby during failover)
		return unavailable(err)
	case code == "23505": // unique violation
		return apperr.Wrap(store.ErrConflict.Kind, store.ErrConflict.Code, store.ErrConflict.Message, err)
	case strings.HasPrefix(code, "22"), // data exception (invalid encoding, value too long, ...)
		code == "54000": // program limit exceeded (e.g. a tsvector too large)
		return apperr.Wrap(store.ErrInvalid.Kind, store.ErrInvalid.Code, "the database refused the value: "+pgErr.Message, err)
	case code == "42P01", code == "42703": // undefined table or column: schema missing
		return apperr.Wrap(apperr.Internal, "schema_missing", "the database schema is missing or outdated: run `registry migrate up`", err)
	}
	return apperr.Wrap(apperr.Internal, "database_error", "unexpected database error", err)
}

// isConnectionError recognises failures to reach or keep a connection.
func isConnectionError(err error) bool {
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled),
		errors.As(err, &connectErr), errors.As(err, &netErr),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		pgconn.Timeout(err), pgconn.SafeToRetry(err):
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "closed pool") || strings.Contains(msg, "conn closed") ||
		strings.Contains(msg, "connection reset") || strings.Contains(msg, "broken pipe")
}

// misconfiguration names what is wrong with the database URL when the
// server's refusal says so: no such database, or credentials refused.
func misconfiguration(err error) error {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return nil
	}
	switch pgErr.Code {
	case "3D000": // invalid_catalog_name
		return apperr.Wrap(apperr.Internal, "database_missing", pgErr.Message+
			": create it (createdb NAME, or CREATE DATABASE) or fix the database name in --database-url / REGISTRY_DATABASE_URL", err)
	case "28P01", "28000": // invalid_password, invalid_authorization_specification
		return apperr.Wrap(apperr.Internal, "database_credentials", "PostgreSQL refused the credentials: "+pgErr.Message+
			"; check the user and password in --database-url / REGISTRY_DATABASE_URL", err)
	}
	return nil
}

func unavailable(cause error) error {
	u := store.ErrUnavailable
	return apperr.Wrap(u.Kind, u.Code, u.Message, cause)
}

func isUnavailable(err error) bool { return errors.Is(err, store.ErrUnavailable) }
