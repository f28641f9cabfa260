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

// bodyVector is the body's lexemes, weighted D.
func bodyVector(body string) string {
	return "setweight(to_tsvector(" + textSearchConfig + ", " + body + "), 'D')"
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
