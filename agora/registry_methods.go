package agora

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Protocol is the registry's JSON view of a stored document.
type Protocol struct {
	Hex         string    `json:"hex"`
	Base64      string    `json:"base64"`
	Title       string    `json:"title"`
	Description string    `json:"description"`
	Tags        []string  `json:"tags"`
	Multiround  bool      `json:"multiround"`
	Version     string    `json:"version,omitempty"`
	Supersedes  string    `json:"supersedes,omitempty"`
	Authors     []string  `json:"authors,omitempty"`
	License     string    `json:"license,omitempty"`
	Size        int       `json:"size"`
	CreatedAt   time.Time `json:"createdAt"`
	Origin      string    `json:"origin"`
	Publisher   string    `json:"publisher"`
	// Status is active, deprecated or withdrawn; a deprecation may carry a
	// message and a replacement hash.
	Status        string   `json:"status"`
	StatusMessage string   `json:"statusMessage,omitempty"`
	Replacement   string   `json:"replacement,omitempty"`
	Lints         []Lint   `json:"lints"`
	Sources       []string `json:"sources"`
	HTMLURL       string   `json:"htmlUrl"`
	SDKCompatible bool     `json:"sdkCompatible"`
	Content       *string  `json:"content,omitempty"`
}

// Published is the answer to a publish: the stored document and whether
// this request created it (HTTP 201) or it already existed (200).
type Published struct {
	Protocol
	Created bool
}

// Resolution is one entry of a batch resolve answer.
type Resolution struct {
	Hash      string   `json:"hash"`
	Found     bool     `json:"found"`
	Hex       string   `json:"hex"`
	Base64    string   `json:"base64"`
	Sources   []string `json:"sources"`
	Title     string   `json:"title"`
	Withdrawn bool     `json:"withdrawn"`
	// Status, Message and Replacement are a found document's lifecycle.
	Status      string `json:"status,omitempty"`
	Message     string `json:"message,omitempty"`
	Replacement string `json:"replacement,omitempty"`
	// Publisher is who first published a found document.
	Publisher string `json:"publisher,omitempty"`
}

// Query is a search; zero fields are left to the registry's defaults.
type Query struct {
	Text   string
	Tags   []string
	Sort   string
	Limit  int
	Cursor string
}

// Page is one page of search results.
type Page struct {
	Items      []Protocol `json:"items"`
	NextCursor *string    `json:"nextCursor"`
}

// Fetch returns a document's exact bytes from the raw URL, verified against
// d (SHA-1 with collision detection): bytes that are not the document asked
// for are never returned.
func (c *Registry) Fetch(ctx context.Context, d Digest) ([]byte, error) {
	req, err := c.request(ctx, http.MethodGet, "/protocol/"+d.Hex(), nil, "", "text/plain")
	if err != nil {
		return nil, err
	}
	_, doc, err := c.do(req, firstPositive(c.MaxDocumentBytes, c.MaxBytes, DefaultRegistryMaxBytes))
	if err != nil {
		return nil, err
	}
	if err := Verify(doc, d); err != nil {
		return nil, fmt.Errorf("the registry answered a different document: %w", err)
	}
	return doc, nil
}

// Publish stores a document (idempotent).
func (c *Registry) Publish(ctx context.Context, doc []byte) (Published, error) {
	req, err := c.request(ctx, http.MethodPost, "/api/v1/protocols", doc, "text/markdown; charset=utf-8", "application/json")
	if err != nil {
		return Published{}, err
	}
	var p Published
	status, err := c.doJSON(req, &p.Protocol)
	p.Created = status == http.StatusCreated
	return p, err
}

// DryRun asks what Publish would store without storing it: the document
// as the registry reads it (hashes, title, lints, SDKCompatible) and, in
// Created, whether publishing would add it.
func (c *Registry) DryRun(ctx context.Context, doc []byte) (Published, error) {
	req, err := c.request(ctx, http.MethodPost, "/api/v1/protocols?dryRun=true", doc, "text/markdown; charset=utf-8", "application/json")
	if err != nil {
		return Published{}, err
	}
	var answer struct {
		Protocol
		DryRun      bool  `json:"dryRun"`
		WouldCreate *bool `json:"wouldCreate"`
	}
	if _, err := c.doJSON(req, &answer); err != nil {
		return Published{}, err
	}
	if !answer.DryRun || answer.WouldCreate == nil {
		// A registry that ignores the parameter may have stored it.
		return Published{}, newError(KindUnavailable, "dry_run_unsupported", "the registry does not support dry runs (it may have published the document)")
	}
	return Published{Protocol: answer.Protocol, Created: *answer.WouldCreate}, nil
}

// SetStatus deprecates a document (with a message and, when replacement
// is not "", the hash to use instead) or, with status "active", undoes it.
func (c *Registry) SetStatus(ctx context.Context, d Digest, status, message, replacement string) (Protocol, error) {
	body, err := json.Marshal(map[string]string{"status": status, "message": message, "replacement": replacement})
	if err != nil {
		return Protocol{}, err
	}
	req, err := c.request(ctx, http.MethodPost, "/api/v1/protocols/"+d.Hex()+"/status", body, "application/json", "application/json")
	if err != nil {
		return Protocol{}, err
	}
	var p Protocol
	_, err = c.doJSON(req, &p)
	return p, err
}

// Lookup finds the one document a hash or a hex prefix of at least 8
// digits (as listings show hashes) names, and returns its metadata. A
// prefix several documents share is refused (409, ambiguous_hash_prefix,
// the candidates in the message). The answer is checked to be a document
// whose hash starts with what was asked.
func (c *Registry) Lookup(ctx context.Context, hashOrPrefix string) (Protocol, error) {
	want := strings.ToLower(hashOrPrefix)
	if d, err := ParseDigest(hashOrPrefix); err == nil {
		want = d.Hex()
	}
	req, err := c.request(ctx, http.MethodGet, "/api/v1/protocols/"+url.PathEscape(hashOrPrefix), nil, "", "application/json")
	if err != nil {
		return Protocol{}, err
	}
	var p Protocol
	if _, err := c.doJSON(req, &p); err != nil {
		return Protocol{}, err
	}
	if d, err := ParseDigest(p.Hex); err != nil || d.Hex() != p.Hex || !strings.HasPrefix(p.Hex, want) {
		return Protocol{}, ErrRegistryBadAnswer.With(fmt.Sprintf("asked for %s, the registry answered %q", hashOrPrefix, p.Hex))
	}
	return p, nil
}

// Get returns a document's metadata, with its text when withContent.
func (c *Registry) Get(ctx context.Context, d Digest, withContent bool) (Protocol, error) {
	path := "/api/v1/protocols/" + d.Hex()
	if withContent {
		path += "?content=1"
	}
	req, err := c.request(ctx, http.MethodGet, path, nil, "", "application/json")
	if err != nil {
		return Protocol{}, err
	}
	var p Protocol
	_, err = c.doJSON(req, &p)
	return p, err
}

// Search returns one page of matching documents.
func (c *Registry) Search(ctx context.Context, q Query) (Page, error) {
	v := url.Values{}
	set := func(k, s string) {
		if s != "" {
			v.Set(k, s)
		}
	}
	set("q", q.Text)
	set("sort", q.Sort)
	set("cursor", q.Cursor)
	if q.Limit > 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	for _, t := range q.Tags {
		v.Add("tag", t)
	}
	path := "/api/v1/protocols"
	if len(v) > 0 {
		path += "?" + v.Encode()
	}
	req, err := c.request(ctx, http.MethodGet, path, nil, "", "application/json")
	if err != nil {
		return Page{}, err
	}
	var p Page
	_, err = c.doJSON(req, &p)
	return p, err
}

// Resolve asks about several hashes at once.
func (c *Registry) Resolve(ctx context.Context, digests []Digest) ([]Resolution, error) {
	hashes := make([]string, len(digests))
	for i, d := range digests {
		hashes[i] = d.Hex()
	}
	payload, err := json.Marshal(map[string][]string{"hashes": hashes})
	if err != nil {
		return nil, err
	}
	req, err := c.request(ctx, http.MethodPost, "/api/v1/resolve", payload, "application/json", "application/json")
	if err != nil {
		return nil, err
	}
	var answer struct {
		Results []Resolution `json:"results"`
	}
	_, err = c.doJSON(req, &answer)
	return answer.Results, err
}

// Withdraw marks a document withdrawn (admin scope), giving reason.
func (c *Registry) Withdraw(ctx context.Context, d Digest, reason string) error {
	payload, err := json.Marshal(map[string]string{"reason": reason})
	if err != nil {
		return err
	}
	req, err := c.request(ctx, http.MethodDelete, "/api/v1/protocols/"+d.Hex(), payload, "application/json", "application/json")
	if err != nil {
		return err
	}
	_, _, err = c.do(req, maxProblemBytes)
	return err
}

// Lint is a non-fatal finding the registry reports about a document
// (missing front matter, a field the Python SDK cannot read, ...).
type Lint struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}
