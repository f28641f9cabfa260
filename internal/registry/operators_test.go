package registry

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/store"
)

func TestParseOperators(t *testing.T) {
	for _, c := range []struct {
		in   store.Query
		want store.Query
		err  string // part of the error message; "" for none
	}{
		{in: store.Query{Text: "weather alert"}, want: store.Query{Text: "weather alert"}},
		{in: store.Query{Text: "tag:currency"}, want: store.Query{Tags: []string{"currency"}}},
		{in: store.Query{Text: "Tag:Currency  conversion"}, want: store.Query{Text: "conversion", Tags: []string{"currency"}}},
		{in: store.Query{Text: "tag:a weather tag:b", Tags: []string{"a"}}, want: store.Query{Text: "weather", Tags: []string{"a", "b"}}},
		{in: store.Query{Text: "publisher:examples weather"}, want: store.Query{Text: "weather", Publisher: "examples"}},
		{in: store.Query{Text: "status:deprecated"}, want: store.Query{Status: entity.StatusDeprecated}},
		{in: store.Query{Text: "STATUS:Active alerts"}, want: store.Query{Text: "alerts", Status: entity.StatusActive}},
		{in: store.Query{Text: "status:active status:active"}, want: store.Query{Status: entity.StatusActive}},
		// Unknown operators and bare ones stay plain words.
		{in: store.Query{Text: "foo:bar tag: publisher:"}, want: store.Query{Text: "foo:bar tag: publisher:"}},
		{in: store.Query{Text: "status:retired"}, err: "status:retired is not a status"},
		{in: store.Query{Text: "status:withdrawn"}, err: "use status:active or status:deprecated"},
		{in: store.Query{Text: "status:active status:deprecated"}, err: "one status at a time"},
		{in: store.Query{Text: "publisher:acme publisher:globex"}, err: "one publisher at a time"},
		// A text too long is Normalize's to refuse, unparsed.
		{in: store.Query{Text: "tag:x " + strings.Repeat("a", store.MaxQueryRunes)}, want: store.Query{Text: "tag:x " + strings.Repeat("a", store.MaxQueryRunes)}},
	} {
		got, err := ParseOperators(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || !errors.Is(err, store.ErrInvalid) {
				t.Errorf("ParseOperators(%q) error = %v, want one saying %q", c.in.Text, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseOperators(%+v) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
}

// FuzzParseOperators: parsing never panics, keeps the given filters, is
// idempotent, leaves no operator in the text and only words of the input.
func FuzzParseOperators(f *testing.F) {
	for _, s := range []string{"tag:currency", "publisher:examples weather", "status:deprecated", "foo:bar", "tag: x", "TAG:Ünï status:ACTIVE"} {
		f.Add(s, "weather")
	}
	f.Fuzz(func(t *testing.T, text, tag string) {
		in := store.Query{Text: text, Tags: []string{tag}}
		got, err := ParseOperators(in)
		if err != nil {
			if !errors.Is(err, store.ErrInvalid) {
				t.Fatalf("error %v is not invalid input", err)
			}
			return
		}
		if len(got.Tags) == 0 || got.Tags[0] != tag {
			t.Fatalf("the given tag was lost: %v", got.Tags)
		}
		switch got.Status {
		case "", entity.StatusActive, entity.StatusDeprecated:
		default:
			t.Fatalf("status %q", got.Status)
		}
		again, err := ParseOperators(got)
		if err != nil || !reflect.DeepEqual(again, got) {
			t.Fatalf("not idempotent: %+v then %+v, %v", got, again, err)
		}
		if got.Text == text {
			return
		}
		inputWords := strings.Fields(text)
		for _, w := range strings.Fields(got.Text) {
			if _, _, op := operator(w); op {
				t.Fatalf("operator %q left in %q", w, got.Text)
			}
			found := false
			for _, iw := range inputWords {
				found = found || iw == w
			}
			if !found {
				t.Fatalf("word %q of %q is not in the input %q", w, got.Text, text)
			}
		}
	})
}
