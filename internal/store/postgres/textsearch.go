package postgres

import (
	"strings"
	"unicode/utf8"
)

// MaxIndexedBodyBytes is how much of a document's body is indexed for
// search. PostgreSQL refuses a tsvector over 1 MB, and a body of short
// distinct words yields several bytes of lexemes per byte of text; within
// this limit every document indexes without error. The title, description
// and tags are always indexed whole.
const MaxIndexedBodyBytes = 128 << 10

// textSearchConfig is the text-search configuration of documents and
// queries alike; both must use the same one for lexemes to match.
const textSearchConfig = "'registry_english'"

// headVector is the weighted lexemes of the title (A) and the description
// and tags (B), from two text expressions.
func headVector(title, meta string) string {
	return "setweight(to_tsvector(" + textSearchConfig + ", " + title + "), 'A') || setweight(to_tsvector(" +
		textSearchConfig + ", " + meta + "), 'B')"
}

// searchVector is the search column: head's lexemes, and the lexemes of
// the body's distinct words (distinctWords) without positions. Their
// positions would be those of the distinct words, not of the body, and
// nothing reads them: search matches plainto_tsquery (no phrases) and
// ranks by head. Stripped, the column is a fifth smaller.
func searchVector(head, words string) string {
	return head + " || strip(to_tsvector(" + textSearchConfig + ", " + words + "))"
}

// metaText is the description and tags as one text to index.
func metaText(description string, tags []string) string {
	return description + " " + strings.Join(tags, " ")
}

// bodyText is the indexed part of the content: at most MaxIndexedBodyBytes,
// cut at a character boundary, as valid UTF-8 without NUL (PostgreSQL text
// refuses NUL; prepared documents have neither, but Put does not trust it).
func bodyText(content []byte) string {
	if len(content) > MaxIndexedBodyBytes {
		cut := MaxIndexedBodyBytes
		for cut > 0 && !utf8.RuneStart(content[cut]) {
			cut--
		}
		content = content[:cut]
	}
	s := strings.ToValidUTF8(string(content), " ")
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", " ")
	}
	return s
}

// distinctWords is body with every whitespace-separated word after its
// first occurrence left out. PostgreSQL's parser never reads a token
// across ASCII whitespace except inside an HTML tag or comment, so the
// lexemes of the result are the lexemes of body: to_tsvector, the largest
// share of an insert's server CPU, then reads each word once. Positions
// differ, which nothing reads: queries are plainto_tsquery (no phrases)
// and relevance comes from head. A body with '<' is returned whole.
func distinctWords(body string) string {
	if strings.IndexByte(body, '<') >= 0 {
		return body
	}
	seen := wordSets.Get().(*wordSet)
	defer wordSets.Put(seen)
	seen.reset(len(body) / 4)
	out := make([]byte, 0, len(body)/2)
	// Bytes, not runes: no byte of a multi-byte UTF-8 character is ASCII.
	for i := 0; i < len(body); {
		for i < len(body) && isASCIISpace(body[i]) {
			i++
		}
		start := i
		for i < len(body) && !isASCIISpace(body[i]) {
			i++
		}
		if start == i {
			break
		}
		word := body[start:i]
		if !seen.add(word) {
			continue
		}
		if len(out) > 0 {
			out = append(out, ' ')
		}
		out = append(out, word...)
	}
	return string(out)
}

// isASCIISpace is the whitespace PostgreSQL's parser always splits at.
func isASCIISpace(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\v', '\f':
		return true
	}
	return false
}
