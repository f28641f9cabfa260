package directory

import (
	"context"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/go-jose/go-jose/v4"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/store"
)

// a2aCardPath is where A2A §8.2 has an agent publish its card.
const a2aCardPath = "/.well-known/agent-card.json"

// Bounds of one card's signature check: signatures tried, key sets
// fetched, keys read from one set.
const (
	maxCardSignatures = 4
	maxKeySetFetches  = 2
	maxJWKSKeys       = 32
	minRSABits        = 2048
)

var errNotCard = errors.New("not an A2A agent card (a JSON object with a name)")

// parseCard reads an agent card: name, description, version, skills and
// interfaces, cut to the store's limits. The signature is checked apart.
func parseCard(raw []byte) (entity.AgentCard, error) {
	var doc struct {
		Name, Description, Version json.RawMessage
		Skills                     []json.RawMessage
		SupportedInterfaces        []json.RawMessage
		// A2A before 1.0: url with preferredTransport, then additionalInterfaces.
		URL                  json.RawMessage
		PreferredTransport   json.RawMessage
		AdditionalInterfaces []json.RawMessage
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return entity.AgentCard{}, errNotCard
	}
	c := entity.AgentCard{
		Name:        text(doc.Name, store.MaxAgentNameRunes),
		Description: text(doc.Description, store.MaxAgentDescriptionRunes),
		Version:     text(doc.Version, store.MaxA2AShortRunes),
		Skills:      []entity.A2ASkill{},
		Interfaces:  []entity.A2AInterface{},
		SkillCount:  len(doc.Skills),
	}
	if c.Name == "" {
		return entity.AgentCard{}, errNotCard
	}
	for _, r := range doc.Skills[:min(len(doc.Skills), store.MaxA2ASkills)] {
		var s struct{ ID, Name, Description, Tags, Examples json.RawMessage }
		if json.Unmarshal(r, &s) != nil {
			continue
		}
		c.Skills = append(c.Skills, entity.A2ASkill{
			ID: line(s.ID), Name: line(s.Name), Description: text(s.Description, store.MaxA2ATextRunes),
			Tags: words(s.Tags, store.MaxA2ASkillTags, store.MaxA2AShortRunes), Examples: words(s.Examples, store.MaxA2ASkillExamples, store.MaxA2ATextRunes),
		})
	}
	addInterface := func(url, binding, version json.RawMessage) {
		u := text(url, store.MaxAgentURLBytes)
		if u == "" || len(u) > store.MaxAgentURLBytes || len(c.Interfaces) == store.MaxA2AInterfaces {
			return
		}
		c.Interfaces = append(c.Interfaces, entity.A2AInterface{URL: u, ProtocolBinding: line(binding), ProtocolVersion: line(version)})
	}
	for _, r := range doc.SupportedInterfaces {
		var i struct{ URL, ProtocolBinding, ProtocolVersion json.RawMessage }
		if json.Unmarshal(r, &i) == nil {
			addInterface(i.URL, i.ProtocolBinding, i.ProtocolVersion)
		}
	}
	if len(doc.SupportedInterfaces) == 0 {
		transport := doc.PreferredTransport
		if transport == nil {
			transport = json.RawMessage(`"JSONRPC"`) // the pre-1.0 default
		}
		addInterface(doc.URL, transport, nil)
		for _, r := range doc.AdditionalInterfaces {
			var i struct{ URL, Transport json.RawMessage }
			if json.Unmarshal(r, &i) == nil {
				addInterface(i.URL, i.Transport, nil)
			}
		}
	}
	return c, nil
}

// line is a short one-line string field.
func line(raw json.RawMessage) string {
	return strings.ReplaceAll(text(raw, store.MaxA2AShortRunes), "\n", " ")
}

// words reads a JSON list of strings: non-empty ones, at most n, each cut
// to runes.
func words(raw json.RawMessage, n, runes int) []string {
	var list []json.RawMessage
	_ = json.Unmarshal(raw, &list)
	out := []string{}
	for _, r := range list {
		if s := text(r, runes); s != "" {
			out = append(out, s)
		}
		if len(out) == n {
			break
		}
	}
	return out
}

// cardSignature is one entry of a card's signatures (A2A §8.4.2): a JWS
// in the flattened JSON serialization, its payload detached.
type cardSignature struct {
	Protected string `json:"protected"`
	Signature string `json:"signature"`
}

// protectedHeader is what the directory reads of a JWS protected header.
type protectedHeader struct {
	Alg  string          `json:"alg"`
	Kid  string          `json:"kid"`
	Jku  string          `json:"jku"`
	Crit json.RawMessage `json:"crit"`
	B64  json.RawMessage `json:"b64"` // RFC 7797's unencoded payload, which go-jose would honour
}

// verifyCard checks a card's signatures (A2A §8.4.3): each signs the JCS
// canonical form of the card without "signatures"; its protected header
// names the algorithm (ES256, RS256 or EdDSA), the key (kid) and the key
// set holding it (jku). The key set is trusted only on the agent's own
// origin: fetched from another would let anyone vouch for a card. One
// signature that verifies makes the card verified.
func (d *Directory) verifyCard(ctx context.Context, origin string, raw []byte) (status, reason, kid string) {
	var doc struct {
		Signatures json.RawMessage `json:"signatures"`
	}
	_ = json.Unmarshal(raw, &doc)
	var sigs []json.RawMessage
	if len(doc.Signatures) > 0 && string(doc.Signatures) != "null" {
		if json.Unmarshal(doc.Signatures, &sigs) != nil {
			return entity.SignatureInvalid, "signatures is not a list", ""
		}
	}
	if len(sigs) == 0 {
		return entity.SignatureUnsigned, "", ""
	}
	payload, err := canonicalJSON(raw, "signatures")
	if err != nil {
		return entity.SignatureInvalid, err.Error(), ""
	}
	sets := map[string]*keySet{}
	var reasons []string
	for i, r := range sigs[:min(len(sigs), maxCardSignatures)] {
		kid, err := d.verifySignature(ctx, origin, r, payload, sets)
		if err == nil {
			return entity.SignatureVerified, "", kid
		}
		reasons = append(reasons, fmt.Sprintf("signature %d: %s", i+1, err.Error()))
	}
	return entity.SignatureInvalid, store.CheckAgentReason(strings.Join(reasons, "; ")), ""
}

// keySet is a fetched JWKS (or why it could not be read): its keys as
// sent, each read only when its kid is asked for.
type keySet struct {
	keys []json.RawMessage
	err  error
}

func (d *Directory) verifySignature(ctx context.Context, origin string, raw json.RawMessage, payload []byte, sets map[string]*keySet) (string, error) {
	var s cardSignature
	if json.Unmarshal(raw, &s) != nil || s.Protected == "" || s.Signature == "" {
		return "", errors.New("not a JWS with protected and signature")
	}
	hb, err := base64.RawURLEncoding.DecodeString(s.Protected)
	if err != nil {
		return "", errors.New("the protected header is not base64url")
	}
	var h protectedHeader
	if json.Unmarshal(hb, &h) != nil {
		return "", errors.New("the protected header is not a JSON object")
	}
	switch {
	case h.Alg != "ES256" && h.Alg != "RS256" && h.Alg != "EdDSA":
		return "", fmt.Errorf("algorithm %q refused (ES256, RS256 and EdDSA are accepted)", clip(h.Alg))
	case len(h.Crit) > 0 || len(h.B64) > 0:
		return "", errors.New("critical and b64 header parameters are not understood")
	case h.Kid == "":
		return "", errors.New("the protected header names no key (kid)")
	case h.Jku == "":
		return "", errors.New("the protected header names no key set (jku)")
	}
	if o, err := Origin(h.Jku); err != nil || o != origin || !strings.HasPrefix(h.Jku, origin+"/") {
		return "", errors.New("the key set (jku) is not on the agent's own origin")
	}
	// The header's checks above are the directory's; go-jose checks the
	// signature against the one algorithm the header names.
	sig, err := jose.ParseDetached(s.Protected+".."+s.Signature, payload, []jose.SignatureAlgorithm{jose.SignatureAlgorithm(h.Alg)})
	if err != nil {
		return "", errors.New("the signature is not a base64url JWS")
	}
	set := sets[h.Jku]
	if set == nil {
		if len(sets) == maxKeySetFetches {
			return "", errors.New("too many key sets")
		}
		set = d.fetchKeySet(ctx, h.Jku)
		sets[h.Jku] = set
	}
	if set.err != nil {
		return "", set.err
	}
	found := false
	for _, r := range set.keys {
		var named struct{ Kid, Use string }
		if json.Unmarshal(r, &named) != nil || named.Kid != h.Kid {
			continue
		}
		found = true
		if verifies(sig, payload, named.Use, r) {
			return h.Kid, nil
		}
	}
	if !found {
		return "", fmt.Errorf("the key set has no key %q", clip(h.Kid))
	}
	return "", errors.New("the signature does not verify")
}

// fetchKeySet reads a JWKS through the guard with the well-known size
// limit, keeping at most maxJWKSKeys keys.
func (d *Directory) fetchKeySet(ctx context.Context, url string) *keySet {
	body, err := d.fetch.Get(ctx, url, d.cfg.MaxBytes)
	if err != nil {
		return &keySet{err: errors.New("the key set could not be read: " + reason(err))}
	}
	var doc struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if json.Unmarshal(body, &doc) != nil {
		return &keySet{err: errors.New("the key set is not a JWKS")}
	}
	return &keySet{keys: doc.Keys[:min(len(doc.Keys), maxJWKSKeys)]}
}

// verifies reports whether sig verifies under the JWK raw: a signing key
// go-jose reads (it checks the key's material and, at verification, that
// its type fits the algorithm), an RSA one of at least minRSABits.
func verifies(sig *jose.JSONWebSignature, payload []byte, use string, raw json.RawMessage) bool {
	var k jose.JSONWebKey
	if use != "" && use != "sig" || k.UnmarshalJSON(raw) != nil {
		return false
	}
	k = k.Public()
	if pub, ok := k.Key.(*rsa.PublicKey); ok && pub.N.BitLen() < minRSABits {
		return false
	}
	return sig.DetachedVerify(payload, k) == nil
}

// clip cuts a stranger's string for an error message.
func clip(s string) string {
	s = strings.ToValidUTF8(s, "?")
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}
