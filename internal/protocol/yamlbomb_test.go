package protocol

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
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

// These tests prove the alias bomb is not expanded by returning at all: an
// expansion would need gigabytes and minutes. There is deliberately no
// timing assertion (performance belongs in benchmarks).
func TestParseMetadataSurvivesAliasBombs(t *testing.T) {
	t.Run("unused anchors", func(t *testing.T) {
		m, lints := ParseMetadata([]byte(billionLaughs()))
		if got := lintCodes(lints); !m.FrontMatter || m.Title != "Bomb" || !reflect.DeepEqual(got, []string{LintSDKName}) {
			t.Fatalf("got %+v, %v", m, lints)
		}
	})
	t.Run("every field names the bomb", func(t *testing.T) {
		m, lints := ParseMetadata([]byte(billionLaughs(
			"name", "title", "description", "multiround", "tags", "version", "supersedes", "authors", "license")))
		// The SDK reads the bomb as a (non-empty, so true) list: it sends
		// multiround: true.
		if m.Title != "Bomb" || m.Description != "Body." || len(m.Tags) != 0 || m.Authors != nil || !m.Multiround {
			t.Fatalf("got %+v", m)
		}
		want := []string{LintSDKName, LintSDKDescription, LintSDKMultiround}
		for range 8 { // every field but multiround, which only the SDK lint covers
			want = append([]string{LintInvalidField}, want...)
		}
		if got := lintCodes(lints); !reflect.DeepEqual(got, want) {
			t.Fatalf("lints %v, want %v", lints, want)
		}
	})
	t.Run("the bomb in a list", func(t *testing.T) {
		doc := strings.Replace(billionLaughs(), "---\n# Bomb", "tags: [x, *i, y]\nauthors: [*i]\n---\n# Bomb", 1)
		m, lints := ParseMetadata([]byte(doc))
		if len(m.Tags) != 0 || m.Authors != nil {
			t.Fatalf("got %+v", m)
		}
		if got := lintCodes(lints); !reflect.DeepEqual(got, []string{LintInvalidField, LintInvalidField, LintSDKName}) {
			t.Fatalf("lints %v", lints)
		}
	})
}

func TestParseMetadataSurvivesDeepNesting(t *testing.T) {
	const depth = 200_000
	for name, value := range map[string]string{
		"flow sequences": strings.Repeat("[", depth) + strings.Repeat("]", depth),
		"flow mappings":  strings.Repeat("{a: ", depth) + strings.Repeat("}", depth),
	} {
		t.Run(name, func(t *testing.T) {
			m, lints := ParseMetadata([]byte("---\ntags: " + value + "\n---\n# Deep\n"))
			if m.FrontMatter || m.Title != "Deep" {
				t.Fatalf("got %+v", m)
			}
			// Over MaxSDKBlockBytes: unchecked for the SDK, refused by yaml.v3.
			if got := lintCodes(lints); len(got) < 2 || got[0] != LintSDKUnchecked || got[1] != LintInvalidFrontMatter {
				t.Fatalf("lints %v", lints)
			}
		})
	}
	t.Run("block sequences within the depth limit", func(t *testing.T) {
		doc := "---\ntags:\n" + strings.Repeat("- ", 9_999) + "x\n---\n# Deep\n"
		m, lints := ParseMetadata([]byte(doc))
		if m.FrontMatter || m.Title != "Deep" || len(m.Tags) != 0 {
			t.Fatalf("got %+v", m)
		}
		// yaml.v3 reads it; PyYAML runs out of Python stack.
		if got := lintCodes(lints); len(got) < 2 || got[0] != LintInvalidFrontMatter || got[1] != LintInvalidField ||
			!strings.Contains(lints[0].Message, "RecursionError") {
			t.Fatalf("lints %v", lints)
		}
	})
	t.Run("block sequences beyond the depth limit", func(t *testing.T) {
		doc := "---\ntags:\n" + strings.Repeat("- ", 400_000) + "x\n---\n# Deep\n"
		m, lints := ParseMetadata([]byte(doc))
		if m.FrontMatter || m.Title != "Deep" {
			t.Fatalf("got %+v", m)
		}
		if got := lintCodes(lints); len(got) < 2 || got[0] != LintSDKUnchecked || got[1] != LintInvalidFrontMatter {
			t.Fatalf("lints %v", lints)
		}
	})
}
