package resolve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/agora-registry/registry/internal/agent/safehttp"
	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/protocol"
)

// maxRegistryJSONBytes bounds a registry's JSON answers (a batch resolve of
// hundreds of hashes with a few sources each fits easily).
const maxRegistryJSONBytes = 4 << 20

// Registry talks to one Agora registry over its public HTTP API.
type Registry struct {
	Base   string // e.g. "http://127.0.0.1:8080", no trailing slash
	Client *safehttp.Client
	// Token, when set, is sent as a bearer token when publishing.
	Token string
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
}

// RawURL is the registry's stable raw URL of a document.
func (r *Registry) RawURL(d protocol.Digest) string {
	return strings.TrimRight(r.Base, "/") + "/protocol/" + d.Hex()
}

// Resolve asks the registry about several hashes at once.
func (r *Registry) Resolve(ctx context.Context, digests []protocol.Digest) ([]Resolution, error) {
	hashes := make([]string, len(digests))
	for i, d := range digests {
		hashes[i] = d.Hex()
	}
	payload, _ := json.Marshal(map[string][]string{"hashes": hashes})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(r.Base, "/")+"/api/v1/resolve", bytes.NewReader(payload))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	raw, err := r.Client.Do(req, maxRegistryJSONBytes)
	if err != nil {
		return nil, err
	}
	var answer struct {
		Results []Resolution `json:"results"`
	}
	if err := json.Unmarshal(raw, &answer); err != nil {
		return nil, apperr.Wrap(apperr.Unavailable, "registry_bad_answer", "the registry's resolve answer is not the expected JSON", err)
	}
	return answer.Results, nil
}

// Raw fetches a document's bytes from the registry (unverified).
func (r *Registry) Raw(ctx context.Context, d protocol.Digest, maxBytes int) ([]byte, error) {
	return r.Client.Get(ctx, r.RawURL(d), maxBytes)
}

// Published is the registry's answer to a publish.
type Published struct {
	Hex     string   `json:"hex"`
	Base64  string   `json:"base64"`
	Title   string   `json:"title"`
	Sources []string `json:"sources"`
}

// Publish stores a document in the registry (idempotent) and returns its
// sources.
func (r *Registry) Publish(ctx context.Context, doc []byte) (Published, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(r.Base, "/")+"/api/v1/protocols", bytes.NewReader(doc))
	if err != nil {
		return Published{}, err
	}
	req.Header.Set("Content-Type", "text/markdown; charset=utf-8")
	req.Header.Set("Accept", "application/json")
	if r.Token != "" {
		req.Header.Set("Authorization", "Bearer "+r.Token)
	}
	raw, err := r.Client.Do(req, maxRegistryJSONBytes)
	if err != nil {
		return Published{}, fmt.Errorf("publishing to %s: %w", r.Base, err)
	}
	var p Published
	if err := json.Unmarshal(raw, &p); err != nil {
		return Published{}, apperr.Wrap(apperr.Unavailable, "registry_bad_answer", "the registry's publish answer is not the expected JSON", err)
	}
	return p, nil
}
