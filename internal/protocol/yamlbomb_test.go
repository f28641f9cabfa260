package protocol

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/apperr"
)

// billionLaughs is the classic alias bomb: each level lists the previous
// one nine times, so a naive expansion of the last level has 9^9
// (387 million) leaves from a few hundred bytes.
func billionLaughs(uses ...string) string {
	var b strings.Builder
	b.WriteString("---\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n")
	prev := "a"
	for _, name := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		fmt.Fprintf(&b, "%s: &%s [*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s]\n", name, name,
			prev, prev, prev, prev, prev, prev, prev, prev, prev)
		prev = name
	}
	for _, field := range uses {
		fmt.Fprintf(&b, "%s: *i\n", field)
	}
	b.WriteString("---\n# Bomb\n\nBody.\n")
	return b.String()
}

// An alias bomb is refused by its expanded node count, which is counted
// without expanding it: the test returning at all shows that (an expansion
// would need gigabytes). There is deliberately no timing assertion.
func TestAliasBombsAreOverTheNodeBudget(t *testing.T) {
	for name, doc := range map[string]string{
		"unused anchors":          billionLaughs(),
		"every field names it":    billionLaughs("name", "title", "description", "multiround", "tags", "version", "supersedes", "authors", "license"),
		"the bomb in a list":      strings.Replace(billionLaughs(), "---\n# Bomb", "tags: [x, *i, y]\nauthors: [*i]\n---\n# Bomb", 1),
		"an alias to an ancestor": "---\na: &a [x, *a]\n---\n# Bomb\n\nBody.\n",
	} {
		t.Run(name, func(t *testing.T) {
			m, lints := ParseMetadata([]byte(doc))
			// FrontMatter says whether the SDK reads it (PyYAML shares the
			// aliased lists, so it does); the registry itself does not.
			if m.Title != "Bomb" || m.Description != "Body." || len(m.Tags) != 0 || len(m.Authors) != 0 {
				t.Fatalf("the front matter was read: %+v", m)
			}
			if got := lintCodes(lints); !slices.Contains(got, LintFrontMatterTooLarge) && !slices.Contains(got, LintInvalidFrontMatter) {
				t.Fatalf("lints %v", lints)
			}
		})
	}
	if _, err := Prepare([]byte(billionLaughs("tags")), 0); !errors.Is(err, ErrFrontMatterTooLarge) {
		t.Fatalf("Prepare of an alias bomb: %v, want %s", err, ErrFrontMatterTooLarge.Code)
	}
}

func TestAliasesWithinTheBudgetAreRead(t *testing.T) {
	m, lints := ParseMetadata([]byte("---\nx: &x Weather\nname: *x\ntags: &t [a, b]\nauthors: *t\n---\nBody.\n"))
	if m.Title != "Weather" || len(m.Tags) != 2 || len(m.Authors) != 2 {
		t.Fatalf("got %+v, %v", m, lints)
	}
}

// The limits are exact: a block of MaxFrontMatterBytes (or of
// MaxFrontMatterNodes nodes) is read, one byte (or node) more is refused.
func TestFrontMatterLimitsAreExact(t *testing.T) {
	withBlock := func(block string) []byte { return []byte("---\n" + block + "---\n# Fallback\n\nBody.\n") }
	sized := func(n int) string { // "name: Sized\n" padded with a comment to n bytes
		head := "name: Sized\n#"
		return head + strings.Repeat("x", n-len(head)-1) + "\n"
	}
	// A mapping of k pairs is 1 document + 1 mapping + 2k scalar nodes.
	pairs := func(k int) string {
		var b strings.Builder
		b.WriteString("name: Sized\n")
		for i := 1; i < k; i++ {
			fmt.Fprintf(&b, "k%d: v\n", i)
		}
		return b.String()
	}
	for _, c := range []struct {
		name  string
		block string
		read  bool
	}{
		{"largest block", sized(MaxFrontMatterBytes), true},
		{"one byte over", sized(MaxFrontMatterBytes + 1), false},
		{"most nodes", pairs((MaxFrontMatterNodes - 2) / 2), true},
		{"one pair over", pairs((MaxFrontMatterNodes-2)/2 + 1), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc := withBlock(c.block)
			m, lints := ParseMetadata(doc)
			_, err := Prepare(doc, 0)
			if c.read {
				if m.Title != "Sized" || err != nil {
					t.Fatalf("refused: %+v %v %v", m, lints, err)
				}
				return
			}
			if m.Title != "Fallback" || lintCodes(lints)[0] != LintFrontMatterTooLarge {
				t.Fatalf("read: %+v %v", m, lints)
			}
			if e := apperr.As(err); !errors.Is(err, ErrFrontMatterTooLarge) || e.Kind != apperr.TooLarge || e.Message == ErrFrontMatterTooLarge.Message {
				t.Fatalf("Prepare: %v, want %s with the limit in its message", err, ErrFrontMatterTooLarge.Code)
			}
		})
	}
}

func TestParseMetadataSurvivesDeepNesting(t *testing.T) {
	const depth = 15_000 // beyond the YAML decoder's depth limit, within the size limit
	for name, value := range map[string]string{
		"flow sequences":  strings.Repeat("[", depth) + strings.Repeat("]", depth),
		"flow mappings":   strings.Repeat("{a: ", depth/2) + strings.Repeat("}", depth/2),
		"block sequences": "\n" + strings.Repeat("- ", depth) + "x",
	} {
		t.Run(name, func(t *testing.T) {
			m, lints := ParseMetadata([]byte("---\ntags: " + value + "\n---\n# Deep\n"))
			if m.FrontMatter || m.Title != "Deep" {
				t.Fatalf("got %+v", m)
			}
			if got := lintCodes(lints); len(got) == 0 || (got[0] != LintInvalidFrontMatter && got[0] != LintFrontMatterTooLarge) {
				t.Fatalf("lints %v", lints)
			}
		})
	}
	t.Run("block sequences within the limits", func(t *testing.T) {
		doc := "---\ntags:\n" + strings.Repeat("- ", 5_000) + "x\n---\n# Deep\n"
		m, lints := ParseMetadata([]byte(doc))
		if m.FrontMatter || m.Title != "Deep" || len(m.Tags) != 0 {
			t.Fatalf("got %+v", m)
		}
		// yaml.v3 reads it; PyYAML runs out of Python stack.
		if got := lintCodes(lints); len(got) < 2 || got[0] != LintInvalidFrontMatter || got[1] != LintInvalidField ||
			!strings.Contains(lints[0].Message, "nested more than 480 levels deep") {
			t.Fatalf("lints %v", lints)
		}
	})
}
