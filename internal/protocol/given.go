package protocol

// Given is metadata a publisher sends beside a document: the paper demo's
// protocol DB takes {"name","description","protocol"}, and its negotiated
// documents have no front matter. A given title or description takes the
// place of the Markdown fallback (first heading, first paragraph), never of
// the front matter's own name or description: the document's word wins
// when it has one.
type Given struct {
	Title       string
	Description string
}
