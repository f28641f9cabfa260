package postgres_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/postgres"
	"github.com/agora-registry/registry/internal/testing/pgtest"
)

// TestMisconfiguredURLIsNotAnOutage: a database that does not exist and a
// role the server refuses are said as such, with the fix, and are not
// ErrUnavailable ("try again shortly"), which start-up would wait on.
func TestMisconfiguredURLIsNotAnOutage(t *testing.T) {
	admin, err := pgtest.AdminDSN()
	if err != nil {
		pgtest.NewDatabase(t) // skips or fails as the environment says
		return
	}
	noDB, err := pgtest.WithDatabase(admin, "agora_no_such_database")
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.User("agora_no_such_role")
	for _, tc := range []struct{ dsn, code, says string }{
		{noDB, "database_missing", `"agora_no_such_database" does not exist: create it`},
		{u.String(), "database_credentials", "refused the credentials"},
	} {
		s, err := postgres.Open(context.Background(), tc.dsn)
		if err == nil {
			s.Close()
			t.Fatalf("%s opened", tc.dsn)
		}
		ae := apperr.As(err)
		if errors.Is(err, store.ErrUnavailable) || ae == nil || ae.Code != tc.code || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v (code %v)", tc.code, err, ae)
		}
	}
}
