package pgtest

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestNewDatabaseIsFreshAndDroppedAfterward(t *testing.T) {
	var name string
	t.Run("inner", func(t *testing.T) {
		dsn := NewDatabase(t)
		conn, err := pgx.Connect(context.Background(), dsn)
		if err != nil {
			t.Fatalf("connect to new database: %v", err)
		}
		defer conn.Close(context.Background())
		if err := conn.QueryRow(context.Background(), "SELECT current_database()").Scan(&name); err != nil {
			t.Fatal(err)
		}
		var tables int
		if err := conn.QueryRow(context.Background(),
			"SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").Scan(&tables); err != nil {
			t.Fatal(err)
		}
		if tables != 0 {
			t.Errorf("new database has %d tables, want 0", tables)
		}
	})
	if name == "" {
		t.Skip("inner test was skipped")
	}
	admin, err := AdminDSN()
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(context.Background(), admin)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var exists bool
	if err := conn.QueryRow(context.Background(),
		"SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		t.Fatal(err)
	}
	if exists {
		t.Errorf("database %s still exists after the test ended", name)
	}
}

func TestWithDatabase(t *testing.T) {
	cases := map[string]string{
		"postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable": "postgres://postgres@127.0.0.1:5432/other?sslmode=disable",
		"host=127.0.0.1 user=postgres dbname=postgres":                "host=127.0.0.1 user=postgres dbname=postgres dbname=other",
	}
	for in, want := range cases {
		got, err := WithDatabase(in, "other")
		if err != nil || got != want {
			t.Errorf("WithDatabase(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}
