package registry

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// Publishing stored bytes again with tags the entry lacks is refused with
// a message naming them; the same bytes with tags it has, or none, pass.
func TestRepublishWithNewTagsIsRefused(t *testing.T) {
	svc := newService(t, Config{})
	ctx := context.Background()
	doc := []byte("---\nname: Tagged\ndescription: d\ntags: [alpha]\n---\n")
	first, err := svc.Publish(ctx, doc, []string{"beta"}, "")
	if err != nil || !first.Created {
		t.Fatalf("first publish: %+v, %v", first, err)
	}
	for _, tags := range [][]string{nil, {"alpha"}, {"Beta", "alpha"}} {
		if res, err := svc.Publish(ctx, doc, tags, ""); err != nil || res.Created {
			t.Errorf("republish with %q: %+v, %v; want the existing entry", tags, res, err)
		}
	}
	_, err = svc.Publish(ctx, doc, []string{"beta", "gamma"}, "")
	if !errors.Is(err, ErrTagsNotAdded) || !strings.Contains(err.Error(), "gamma") || strings.Contains(err.Error(), "beta,") {
		t.Fatalf("republish with a new tag: %v, want ErrTagsNotAdded naming gamma only", err)
	}
	e, err := svc.Get(ctx, first.Entry.Digest, false)
	if err != nil || strings.Join(e.Metadata.Tags, ",") != "alpha,beta" {
		t.Fatalf("stored tags %q, %v", e.Metadata.Tags, err)
	}
}
