package render

import (
	"bytes"
	"fmt"
	"strings"

	"golang.org/x/net/html"
)

// dangerous reports the first thing in out that could run script or load
// active content, or "" when there is none. It parses the HTML the way a
// browser tokenizer does, so it sees attributes however they are quoted.
func dangerous(out []byte) string {
	if bytes.Contains(bytes.ToLower(out), []byte("<script")) {
		return "a <script> tag"
	}
	z := html.NewTokenizer(bytes.NewReader(out))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return ""
		case html.StartTagToken, html.SelfClosingTagToken:
			tok := z.Token()
			switch tok.Data {
			case "script", "style", "iframe", "object", "embed", "svg", "math", "form", "base", "meta", "link":
				return fmt.Sprintf("a <%s> element", tok.Data)
			}
			for _, a := range tok.Attr {
				key := strings.ToLower(a.Key)
				if strings.HasPrefix(key, "on") {
					return fmt.Sprintf("an event handler attribute %s=%q", a.Key, a.Val)
				}
				if key == "style" || key == "srcset" || key == "formaction" || key == "action" {
					return fmt.Sprintf("a %s attribute", a.Key)
				}
				if key == "class" && (tok.Data != "code" || !languageClass.MatchString(a.Val)) {
					return fmt.Sprintf("class %q on <%s>", a.Val, tok.Data)
				}
				if (key == "href" || key == "src" || key == "cite") && badScheme(a.Val) {
					return fmt.Sprintf("a dangerous URL %s=%q", a.Key, a.Val)
				}
			}
		}
	}
}

// badScheme reports a URL whose scheme is not http, https or mailto, after
// the normalisation browsers apply (control characters and whitespace are
// ignored inside the scheme, which is case-insensitive).
func badScheme(u string) bool {
	var b strings.Builder
	for _, r := range u {
		if r <= ' ' || r == 0x7f {
			continue
		}
		b.WriteRune(r)
	}
	s := strings.ToLower(b.String())
	colon := strings.IndexByte(s, ':')
	if colon < 0 {
		return false
	}
	if slash := strings.IndexAny(s, "/?#"); slash >= 0 && slash < colon {
		return false // the colon is in the path or query: a relative URL
	}
	switch s[:colon] {
	case "http", "https", "mailto":
		return false
	}
	return true
}
