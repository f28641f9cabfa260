package postgres_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// Listing and search read every row's title and description: both stay
// in the row, where reading them costs no TOAST lookup (a description out
// of line cost the demo's list 5.5 µs of database CPU per row).
func TestMetadataStaysInTheRow(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	doc, err := protocol.Prepare([]byte("---\nname: Layout\ndescription: A description of ordinary length, as most documents have.\ntags: [layout]\n---\n\n# Layout\n\n"+
		strings.Repeat("Body text that makes the row large. ", 200)), 0)
	if err != nil {
		t.Fatal(err)
	}
	e, _, err := s.Put(ctx, store.NewDocument{Document: doc})
	if err != nil {
		t.Fatal(err)
	}
	// A short value kept in the row has a one-byte header, which
	// pg_column_size counts; for a value moved out of line it reports
	// the stored bytes alone (PostgreSQL 17's pg_column_toast_chunk_id
	// would say it directly).
	var titleIn, descriptionIn, contentIn bool
	err = s.Pool().QueryRow(ctx, `SELECT pg_column_size(title) = octet_length(title) + 1,
		pg_column_size(description) = octet_length(description) + 1,
		pg_column_size(content) > octet_length(content) FROM documents WHERE digest = $1`, e.Digest[:]).Scan(&titleIn, &descriptionIn, &contentIn)
	if err != nil {
		t.Fatal(err)
	}
	if !titleIn || !descriptionIn {
		t.Fatalf("title in the row: %v, description in the row: %v; both must stay there", titleIn, descriptionIn)
	}
	if contentIn {
		t.Fatal("the content stayed in the row: the test no longer makes a row the toaster must shrink")
	}
}
