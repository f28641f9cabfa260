package html

import "strings"

// Keyset cursors only go forward, so a results page carries the cursors
// of the pages before it (parameter "back") to link to its previous one.
// The stack is bounded: at most maxBackPages cursors and maxBackBytes in
// all, the oldest dropped first (Previous then leads back as far as the
// stack reaches, then to the first page).
const (
	maxBackPages = 20
	maxBackBytes = 4096
)

// backStack are the cursors of the pages before the current one, oldest
// first; "" stands for the first page.
type backStack []string

// readBackStack parses the parameter; a malformed one is an empty stack
// (each cursor is checked when it is used, like any cursor).
func readBackStack(s string) backStack {
	if s == "" || len(s) > maxBackBytes {
		return nil
	}
	parts := strings.Split(s, ".")
	if len(parts) > maxBackPages {
		return nil
	}
	for i, p := range parts {
		if p == "-" {
			parts[i] = ""
		}
	}
	return parts
}

// push is the stack for the next page: this one's cursor on top.
func (b backStack) push(cursor string) backStack {
	out := append(append(backStack{}, b...), cursor)
	for len(out) > maxBackPages || (len(out) > 1 && len(out.String()) > maxBackBytes) {
		out = out[1:]
	}
	return out
}

// pop is the previous page's cursor and the stack that page carries.
func (b backStack) pop() (string, backStack) {
	if len(b) == 0 {
		return "", nil
	}
	return b[len(b)-1], b[:len(b)-1]
}

// String is the parameter's value; cursors are Base64url, so "." never
// occurs in one, and "-" stands for the first page.
func (b backStack) String() string {
	parts := make([]string, len(b))
	for i, c := range b {
		parts[i] = c
		if c == "" {
			parts[i] = "-"
		}
	}
	return strings.Join(parts, ".")
}
