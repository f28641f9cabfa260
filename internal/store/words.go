package store

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agnivade/levenshtein"
)

// Limits of the work one search does beyond its page (docs/SECURITY.md).
const (
	// MinPrefixRunes is the shortest last word that is also read as a
	// prefix: shorter ones would expand to too many words to be useful.
	MinPrefixRunes = 3
	// MaxPrefixWords caps the indexed words a prefix expands to.
	MaxPrefixWords = 8
	// MaxSuggestCandidates caps the indexed words read per query word when
	// a search that found nothing looks for a suggestion.
	MaxSuggestCandidates = 500
	// MaxSummaryRows caps the matches Summarize reads to count them and
	// their tags (facets); a larger result set is estimated.
	MaxSummaryRows = 500
	// MaxCountRows caps the matches Summarize reads to count them alone
	// (every API search asks); a larger result set is estimated.
	MaxCountRows = 100
	// MaxFacets caps the tags a Summary offers.
	MaxFacets = 30
	// maxWordRunes is the longest word kept in the word list.
	maxWordRunes = 40
)

// Match is what a search looks for, built from its text by the engine:
// every group of Groups must be matched by one of its words. Every group
// holds one query word except the last, which also holds the indexed
// words the last query word is a prefix of (at most MaxPrefixWords).
type Match struct {
	Groups [][]string
}

// Words are every word of every group, each once.
func (m Match) Words() []string {
	var out []string
	seen := map[string]bool{}
	for _, g := range m.Groups {
		for _, w := range g {
			if !seen[w] {
				seen[w] = true
				out = append(out, w)
			}
		}
	}
	return out
}

// NewMatch makes the Match of terms (from Terms) whose last word expands
// to prefixed (the indexed words it is a prefix of, from the engine's word
// list, itself among them or not).
func NewMatch(terms, prefixed []string) Match {
	m := Match{Groups: make([][]string, len(terms))}
	for i, t := range terms {
		m.Groups[i] = []string{t}
	}
	if len(terms) == 0 {
		return m
	}
	last := &m.Groups[len(terms)-1]
	for _, w := range prefixed {
		if w != (*last)[0] && len(*last) <= MaxPrefixWords && isWord(w) {
			*last = append(*last, w)
		}
	}
	return m
}

// PrefixOf is the word the engine expands into indexed words it is a
// prefix of, and ok when the terms have one long enough.
func PrefixOf(terms []string) (prefix string, ok bool) {
	if len(terms) == 0 {
		return "", false
	}
	last := terms[len(terms)-1]
	return last, utf8.RuneCountInString(last) >= MinPrefixRunes
}

// PrefixEnd is the least string greater than every string starting with
// prefix, in byte order, for a range scan [prefix, PrefixEnd(prefix)).
func PrefixEnd(prefix string) string {
	b := []byte(prefix)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return string(b[:i+1])
		}
	}
	return "\xff" // not reached: a Terms word is valid UTF-8, never all 0xff
}

// HeadWords are the distinct words of a document's title, description and
// tags as the word list keeps them.
func HeadWords(title, description string, tags []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range words(title + " " + description + " " + strings.Join(tags, " ")) {
		if len(out) == maxHeadWords {
			break
		}
		if !seen[w] && isWord(w) {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// maxHeadWords caps the words one document adds to the word list.
const maxHeadWords = 200

// isWord reports whether w is one word as Terms splits text, of a length
// the word list keeps.
func isWord(w string) bool {
	n := utf8.RuneCountInString(w)
	if n < 2 || n > maxWordRunes {
		return false
	}
	ws := words(w)
	return len(ws) == 1 && ws[0] == w
}

// SuggestionCandidates is the range of the word list a word's suggestion
// is sought in: the words sharing its first two letters (a misspelling
// keeps them more often than not, and the range stays small).
func SuggestionCandidates(word string) (from, to string) {
	n := 0
	for i := range word {
		if n == 2 {
			return word[:i], PrefixEnd(word[:i])
		}
		n++
	}
	return word, PrefixEnd(word)
}

// Nearest is the candidate nearest to word by edit distance, if one is
// near enough to be a likely misspelling (one edit for words of up to four
// letters, two for longer), and "" otherwise. Ties go to the first.
func Nearest(word string, candidates []string) string {
	limit := 2
	if utf8.RuneCountInString(word) <= 4 {
		limit = 1
	}
	best, bestDist := "", limit+1
	for _, c := range candidates {
		if c == word {
			return "" // the word is indexed: nothing to correct
		}
		if d := levenshtein.ComputeDistance(word, c); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// Summary is the size of a search's result set and the tags in it.
type Summary struct {
	// Total counts the matches, exactly unless Estimated.
	Total     int
	Estimated bool
	// Tags are the tags of TagsOf of the matches (all of them when TagsOf
	// equals an exact Total), most frequent first, at most MaxFacets,
	// leaving out the tags the query filters on already; nil when not
	// asked for.
	Tags   []TagCount
	TagsOf int
}

// CountTags tallies the tags of rows of a summary, leaving out the
// query's own filters.
func CountTags(rows [][]string, filtered []string) []TagCount {
	counts := map[string]int{}
	for _, tags := range rows {
		for _, t := range tags {
			counts[t]++
		}
	}
	for _, t := range filtered {
		delete(counts, t)
	}
	out := make([]TagCount, 0, len(counts))
	for t, n := range counts {
		out = append(out, TagCount{Tag: t, Count: n})
	}
	sortTagCounts(out)
	if len(out) > MaxFacets {
		out = out[:MaxFacets]
	}
	return out
}

func sortTagCounts(tcs []TagCount) {
	slices.SortFunc(tcs, func(a, b TagCount) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return strings.Compare(a.Tag, b.Tag)
	})
}

// WordList reads an engine's word list: at most limit words w with
// from <= w < to, in byte order.
type WordList func(ctx context.Context, from, to string, limit int) ([]string, error)

// Expand makes the Match of a query's terms, expanding the last one by
// prefix from the word list (one read of at most MaxPrefixWords+1 words).
func Expand(ctx context.Context, terms []string, list WordList) (Match, error) {
	prefix, ok := PrefixOf(terms)
	if !ok {
		return NewMatch(terms, nil), nil
	}
	ws, err := list(ctx, prefix, PrefixEnd(prefix), MaxPrefixWords+1)
	if err != nil {
		return Match{}, err
	}
	return NewMatch(terms, ws), nil
}

// Suggest respells the words of text that are not in the word list with
// the nearest word that is (Nearest), reading at most
// MaxSuggestCandidates words per query word; "" when no word changes.
func Suggest(ctx context.Context, text string, list WordList) (string, error) {
	terms := Terms(text)
	changed := false
	for i, t := range terms {
		from, to := SuggestionCandidates(t)
		cands, err := list(ctx, from, to, MaxSuggestCandidates)
		if err != nil {
			return "", err
		}
		if n := Nearest(t, cands); n != "" {
			terms[i], changed = n, true
		}
	}
	if !changed {
		return "", nil
	}
	return strings.Join(terms, " "), nil
}

// SummaryRows is how many matches Summarize reads: MaxSummaryRows with
// facets, MaxCountRows without.
func SummaryRows(facets bool) int {
	if facets {
		return MaxSummaryRows
	}
	return MaxCountRows
}

// Summarized is the Summary of the tags of up to SummaryRows(facets)+1
// matches an engine read: exact when they are at most SummaryRows, else
// an estimate (a lower bound the engine may raise) with the tags of
// SummaryRows of them.
func Summarized(rows [][]string, filtered []string, facets bool) Summary {
	sum := Summary{Total: len(rows)}
	if n := SummaryRows(facets); len(rows) > n {
		rows = rows[:n]
		sum.Estimated = true
	}
	if facets {
		sum.Tags, sum.TagsOf = CountTags(rows, filtered), len(rows)
	}
	return sum
}
