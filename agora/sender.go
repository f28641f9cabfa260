package agora

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
)

// maxReplyBytes bounds what a sender reads from a target.
const maxReplyBytes = 4 << 20

func getJSON(ctx context.Context, client *http.Client, u string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s answered %s", u, statusLine(resp))
	}
	return readLimited(resp.Body, maxReplyBytes)
}

// Candidate is a protocol the sender could use.
type Candidate struct {
	Digest      Digest
	Document    []byte   // nil when only the hash is known
	Title       string   // from the document's front matter or the registry
	Description string   // from the document's front matter or the registry
	Tags        []string // from the document's front matter or the registry
	Implemented bool     // we can produce bodies for it
	// Deprecation is set (by CheckLifecycle) when a registry says the
	// document is deprecated.
	Deprecation *Deprecation
}

// Choice is the chosen protocol and why.
type Choice struct {
	Candidate Candidate
	Reason    string
	// Criterion is the spec's criterion that chose it: 1 listed by the
	// target, 2 implemented, 3 metadata fits the task, 4 an LLM judged it
	// suitable (ChooseWithLLM); 0 when none did and it is merely first.
	Criterion int
}

// ErrNoProtocol means no candidate is usable with the target.
var ErrNoProtocol = errors.New("no usable protocol")

// ChooseProtocol applies the spec's criteria in order: listed by the
// target, then one we have an implementation of, then metadata that fits
// the task (words of task found in title, description or tags). Hashes the
// target marks unsupported are never chosen. Ties keep the given order.
func ChooseProtocol(wk WellKnownInfo, candidates []Candidate, task string) (Choice, error) {
	type ranked struct {
		c                   Candidate
		listed, impl, score int
		index               int
	}
	var rs []ranked
	for i, c := range candidates {
		if wk.Unsupported[c.Digest] {
			continue
		}
		r := ranked{c: c, index: i, score: metadataScore(c, task)}
		if _, ok := wk.Supported[c.Digest]; ok {
			r.listed = 1
		}
		if c.Implemented {
			r.impl = 1
		}
		rs = append(rs, r)
	}
	if len(candidates) == 0 {
		return Choice{}, fmt.Errorf("%w: no candidates", ErrNoProtocol)
	}
	if len(rs) == 0 {
		return Choice{}, fmt.Errorf("%w: the target marks every candidate unsupported", ErrNoProtocol)
	}
	sort.SliceStable(rs, func(i, j int) bool {
		a, b := rs[i], rs[j]
		if a.listed != b.listed {
			return a.listed > b.listed
		}
		if a.impl != b.impl {
			return a.impl > b.impl
		}
		return a.score > b.score
	})
	best := rs[0]
	reason, criterion := "first candidate", 0
	switch {
	case best.listed == 1:
		reason, criterion = "listed by the target", 1
	case best.impl == 1 && best.score > 0:
		reason, criterion = "we implement it and its metadata fits the task", 2
	case best.impl == 1:
		reason, criterion = "we implement it", 2
	case best.score > 0:
		reason, criterion = "its metadata fits the task", 3
	}
	return Choice{Candidate: best.c, Reason: reason, Criterion: criterion}, nil
}

func metadataScore(m Candidate, task string) int {
	if task == "" {
		return 0
	}
	hay := strings.ToLower(m.Title + " " + m.Description + " " + strings.Join(m.Tags, " "))
	score := 0
	for _, w := range strings.Fields(strings.ToLower(task)) {
		if len(w) > 2 && strings.Contains(hay, w) {
			score++
		}
	}
	return score
}

// SourcesFor finds sources for a protocol: the registries' (publishing the
// document there first when publish is set and it is missing), else a data
// URI built from the document.
func SourcesFor(ctx context.Context, c Candidate, registries []*Registry, publish bool) []string {
	for _, reg := range registries {
		res, err := reg.Resolve(ctx, []Digest{c.Digest})
		if err == nil && len(res) == 1 && res[0].Found && !res[0].Withdrawn && len(res[0].Sources) > 0 {
			return res[0].Sources
		}
		if publish && c.Document != nil {
			if p, err := reg.Publish(ctx, c.Document); err == nil && len(p.Sources) > 0 {
				return p.Sources
			}
		}
	}
	if c.Document != nil {
		return []string{DataURI(c.Document)}
	}
	return []string{}
}

// Outgoing is a transaction to send.
type Outgoing struct {
	ProtocolHash    *string  `json:"protocolHash"`
	ProtocolSources []string `json:"protocolSources"`
	Body            string   `json:"body"`
	Multiround      bool     `json:"multiround,omitempty"`
}

// Reply is a target's answer, normalised across the seed spec's, spec
// v0.2's and the SDK's shapes.
type Reply struct {
	Status         string // success, failure or rejected ("error" is read as failure)
	Body           string
	Error          string
	ConversationID string
}

// ParseReply reads an answer in any of the known shapes.
func ParseReply(raw []byte) (Reply, error) {
	var r struct {
		Status         string          `json:"status"`
		Body           json.RawMessage `json:"body"`
		Error          json.RawMessage `json:"error"`
		Message        json.RawMessage `json:"message"`
		ConversationID string          `json:"conversationId"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return Reply{}, fmt.Errorf("the answer is not a JSON object: %w", err)
	}
	out := Reply{Status: strings.ToLower(r.Status), Body: loose(r.Body), ConversationID: r.ConversationID}
	out.Error = loose(r.Error)
	if out.Error == "" {
		out.Error = loose(r.Message)
	}
	switch out.Status {
	case StatusSuccess, StatusFailure, StatusRejected:
	case "error":
		out.Status = StatusFailure
	case "":
		return out, fmt.Errorf("the answer has no status")
	default:
		return out, fmt.Errorf("the answer has an unknown status %q", r.Status)
	}
	return out, nil
}

// loose reads a JSON value as text: strings as they are, anything else as
// its JSON.
func loose(v json.RawMessage) string {
	if len(v) == 0 || string(v) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	return string(v)
}

// Send posts a transaction to target and reads the reply.
func Send(ctx context.Context, client *http.Client, target string, tx Outgoing) (Reply, error) {
	payload, err := json.Marshal(tx)
	if err != nil {
		return Reply{}, err
	}
	return post(ctx, client, http.MethodPost, target, payload)
}

// Continue sends a follow-up in a multi-round conversation.
func Continue(ctx context.Context, client *http.Client, target, conversationID, body string) (Reply, error) {
	payload, _ := json.Marshal(map[string]string{"body": body})
	return post(ctx, client, http.MethodPost, conversationURL(target, conversationID), payload)
}

// End closes a multi-round conversation.
func End(ctx context.Context, client *http.Client, target, conversationID string) (Reply, error) {
	return post(ctx, client, http.MethodDelete, conversationURL(target, conversationID), nil)
}

func conversationURL(target, id string) string {
	return strings.TrimRight(target, "/") + "/conversations/" + url.PathEscape(id)
}

func post(ctx context.Context, client *http.Client, method, u string, payload []byte) (Reply, error) {
	req, err := http.NewRequestWithContext(ctx, method, u, bytes.NewReader(payload))
	if err != nil {
		return Reply{}, err
	}
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := client.Do(req)
	if err != nil {
		return Reply{}, err
	}
	defer resp.Body.Close()
	raw, err := readLimited(resp.Body, maxReplyBytes)
	if err != nil {
		return Reply{}, err
	}
	reply, err := ParseReply(raw)
	if err != nil {
		return reply, fmt.Errorf("%s %s answered %s: %w", method, u, statusLine(resp), err)
	}
	return reply, nil
}
