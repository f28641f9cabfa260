package ard

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/client"
)

// Bounds of federation (docs/discovery.md).
const (
	MaxPeers          = 8 // registries one search asks, the first followed ones
	MaxHops           = 2 // registry-to-registry steps behind one client's search
	FederationTimeout = 3 * time.Second
	MaxAnswerBytes    = 512 << 10 // one peer's answer
	MaxPeerEntryBytes = 16 << 10  // one result of a peer
	maxPeerTextRunes  = 2000
	maxPeerURLBytes   = 2048
)

// Federation headers: how many registry-to-registry steps are behind a
// request and which registries (their ARD URLs) it went through. The spec
// names none; a request carrying ours is never fanned out again past
// MaxHops or through a registry it already visited.
const (
	HopsHeader = "Agora-ARD-Hops"
	ViaHeader  = "Agora-ARD-Via"
)

// Hop is where a request stands in a federation.
type Hop struct {
	Hops int
	Via  []string
}

// ParseHop reads the federation headers; a malformed one counts as the
// last hop, so a confused peer cannot make this registry fan out.
func ParseHop(hops, via string) Hop {
	h := Hop{}
	if hops != "" {
		n, err := strconv.Atoi(hops)
		if err != nil || n < 0 || n > MaxHops {
			n = MaxHops
		}
		h.Hops = n
	}
	if via != "" {
		h.Via = strings.Fields(via)
		if len(h.Via) > MaxHops+1 || len(via) > (MaxHops+1)*maxPeerURLBytes {
			h.Hops, h.Via = MaxHops, nil
		}
	}
	return h
}

// fansOut reports whether a request at h may ask peers from self.
func (h Hop) fansOut(self string) bool { return h.Hops < MaxHops && !h.visited(self) }

// visited reports whether the request went through the registry at u.
func (h Hop) visited(u string) bool { return slices.Contains(h.Via, u) }

func (h Hop) next(self string) Hop {
	return Hop{Hops: h.Hops + 1, Via: append(append([]string(nil), h.Via...), self)}
}

// Peer is a followed registry's ARD API.
type Peer struct {
	URL  string // its ARD base URL
	Host string
}

// Federation asks the registries this one follows (configured by the
// operator, never a URL a request names) through the SSRF guard with
// only their own host:port let through, no redirects, a size cap per
// answer and a deadline per search.
type Federation struct {
	peers []Peer
	fetch *agora.Fetcher
	// Timeout bounds one search's fan-out (0: FederationTimeout).
	Timeout time.Duration
}

// NewFederation federates with the first MaxPeers of upstreams (base
// URLs of registries, as --follow names them); allow is --outbound-allow.
func NewFederation(upstreams, allow []string) (*Federation, error) {
	if len(upstreams) > MaxPeers {
		upstreams = upstreams[:MaxPeers]
	}
	hc, err := client.NewUpstreamHTTP(upstreams, allow, FederationTimeout, -1)
	if err != nil {
		return nil, fmt.Errorf("ard federation: %w", err)
	}
	f := &Federation{fetch: &agora.Fetcher{HTTP: hc}}
	for _, u := range upstreams {
		base := strings.TrimRight(strings.TrimSpace(u), "/") + "/ard"
		f.peers = append(f.peers, Peer{URL: base, Host: hostPublisher(base)})
	}
	return f, nil
}

// Referrals are the followed registries as catalog entries.
func (f *Federation) Referrals() []Referral {
	out := make([]Referral, 0, len(f.peers))
	for _, p := range f.peers {
		pub := p.Host
		if pub == "" {
			pub = "agora-registry.invalid"
		}
		out = append(out, Referral{Identifier: "urn:air:" + pub + ":" + nsRegistry + ":ard",
			DisplayName: "Agora Registry at " + pub, Type: TypeRegistry, URL: p.URL})
	}
	return out
}

// peerRequest is what a peer is asked: the client's query, our page size,
// and federation only while hops remain.
type peerRequest struct {
	Query      Query  `json:"query"`
	Federation string `json:"federation"`
	PageSize   int    `json:"pageSize"`
}

// Search asks every peer not yet visited at once and returns their valid
// results (at most size each, in peer order) and how many peers gave no
// usable answer (down, slow, too large, not JSON).
func (f *Federation) Search(ctx context.Context, q Query, size int, hop Hop) ([]Result, int) {
	timeout := f.Timeout
	if timeout <= 0 {
		timeout = FederationTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	mode := "none"
	if hop.Hops < MaxHops {
		mode = "auto"
	}
	body, err := json.Marshal(peerRequest{Query: q, Federation: mode, PageSize: size})
	if err != nil {
		return nil, len(f.peers)
	}
	answers := make([][]Result, len(f.peers))
	failed := make([]bool, len(f.peers))
	var wg sync.WaitGroup
	for i, p := range f.peers {
		if hop.visited(p.URL) {
			continue // it is on the request's way already
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			rs, err := f.ask(ctx, p, body, hop, size)
			answers[i], failed[i] = rs, err != nil
		}()
	}
	wg.Wait()
	var out []Result
	skipped := 0
	for i := range f.peers {
		out = append(out, answers[i]...)
		if failed[i] {
			skipped++
		}
	}
	return out, skipped
}

var errPeerAnswer = errors.New("the peer's answer is not an ARD search response")

func (f *Federation) ask(ctx context.Context, p Peer, body []byte, hop Hop, size int) ([]Result, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.URL+"/search", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set(HopsHeader, strconv.Itoa(hop.Hops))
	req.Header.Set(ViaHeader, strings.Join(hop.Via, " "))
	raw, err := f.fetch.Do(req, MaxAnswerBytes)
	if err != nil {
		return nil, err
	}
	var ans struct {
		Results []json.RawMessage `json:"results"`
	}
	if err := json.Unmarshal(raw, &ans); err != nil || ans.Results == nil {
		return nil, errPeerAnswer
	}
	var out []Result
	for _, r := range ans.Results {
		if len(out) == size {
			break
		}
		if res, ok := peerResult(r); ok {
			res.Source = p.URL // who told us, whatever the peer claims
			out = append(out, res)
		}
	}
	return out, nil
}

// peerResult decodes one result of a peer and keeps it only if it is a
// well-formed, bounded catalog entry with a 0–100 score.
func peerResult(raw json.RawMessage) (Result, bool) {
	var r Result
	// encoding/json would turn invalid UTF-8 into U+FFFD, passing a text
	// check that the peer's bytes fail.
	if len(raw) > MaxPeerEntryBytes || !utf8.Valid(raw) || json.Unmarshal(raw, &r) != nil {
		return Result{}, false
	}
	hasData := len(r.Data) > 0 && string(r.Data) != "null"
	switch {
	case !URNRE.MatchString(r.Identifier) || len(r.Identifier) > 512,
		r.DisplayName == "" || !shortText(r.DisplayName, 200),
		r.Type == "" || !shortText(r.Type, 200),
		!shortText(r.Description, maxPeerTextRunes),
		r.Score < 0 || r.Score > 100,
		(r.URL != "") == hasData:
		return Result{}, false
	}
	if r.URL != "" {
		u, err := url.Parse(r.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || len(r.URL) > maxPeerURLBytes {
			return Result{}, false
		}
	}
	if hasData && !bytes.HasPrefix(bytes.TrimSpace(r.Data), []byte("{")) {
		return Result{}, false // data is the artifact document, an object
	}
	return r, true
}

func shortText(s string, runes int) bool {
	return utf8.ValidString(s) && utf8.RuneCountInString(s) <= runes
}
