package agora

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Negotiation is the protocolHash value the Agora SDK uses to negotiate.
const Negotiation = "negotiation"

// Transaction is a decoded Agora request.
type Transaction struct {
	// Hash is the protocol's digest; zero with Natural or Negotiation.
	Hash        Digest
	Natural     bool // protocolHash null: a natural-language request
	Negotiation bool // protocolHash "negotiation"
	Sources     []string
	Body        string
	Multiround  bool
}

// Request decoding errors, with stable codes.
var (
	ErrMalformedJSON = newError(KindInvalid, "malformed_json", "the request is not a JSON object")
	ErrWrongType     = newError(KindInvalid, "wrong_type", "a field has the wrong type")
	ErrMissingBody   = newError(KindInvalid, "missing_body", `the request has no "body" (a string or a JSON object)`)
	ErrTooLarge      = newError(KindTooLarge, "request_too_large", "the request is too large")
	ErrTooManySrc    = newError(KindInvalid, "too_many_sources", "too many protocolSources")
)

// MaxSourcesInRequest bounds the sources list a request may carry at all
// (how many are tried is a separate, smaller limit).
const MaxSourcesInRequest = 64

// DecodeTransaction reads an Agora request. It accepts what real senders
// send: the hash in hex or Base64, null, or "negotiation"; sources null, []
// or a list of strings; body a string or a JSON object (spec v0.2). Unknown
// fields are ignored. Wrong types get an error naming the field. Multiround
// is read first, so a refused request still says whether it asked for a
// conversation.
func DecodeTransaction(raw []byte) (Transaction, error) {
	var t Transaction
	fields, err := decodeObject(raw)
	if err != nil {
		return t, err
	}
	if v, ok := fields["multiround"]; ok && !isNull(v) {
		if err := json.Unmarshal(v, &t.Multiround); err != nil {
			return t, ErrWrongType.With(`"multiround" must be true or false`)
		}
	}
	hash, err := optionalString(fields, "protocolHash")
	if err != nil {
		return t, err
	}
	switch {
	case hash == nil:
		t.Natural = true
	case *hash == Negotiation:
		t.Negotiation = true
	default:
		d, err := ParseDigest(*hash)
		if err != nil {
			return t, wrapError(KindInvalid, "malformed_hash",
				`"protocolHash" must be null, "negotiation", 40 hex characters or 28 Base64 characters`, err)
		}
		t.Hash = d
	}
	if v, ok := fields["protocolSources"]; ok && !isNull(v) {
		if err := json.Unmarshal(v, &t.Sources); err != nil {
			return t, ErrWrongType.With(`"protocolSources" must be null or a list of strings`)
		}
		if len(t.Sources) > MaxSourcesInRequest {
			return t, ErrTooManySrc.With(fmt.Sprintf(`"protocolSources" has %d entries; at most %d are accepted`, len(t.Sources), MaxSourcesInRequest))
		}
	}
	if t.Body, err = bodyText(fields); err != nil {
		return t, err
	}
	return t, nil
}

// bodyText reads "body": a string as it is, a JSON object as its JSON text.
func bodyText(fields map[string]json.RawMessage) (string, error) {
	v, ok := fields["body"]
	if !ok || isNull(v) {
		return "", ErrMissingBody
	}
	v = bytes.TrimSpace(v)
	if len(v) > 0 && v[0] == '{' {
		return string(v), nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", ErrWrongType.With(`"body" must be a string or a JSON object`)
	}
	return s, nil
}

func decodeObject(raw []byte) (map[string]json.RawMessage, error) {
	var fields map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&fields); err != nil || fields == nil {
		return nil, ErrMalformedJSON.With("the request is not a JSON object: " + jsonErrText(err))
	}
	if dec.More() {
		return nil, ErrMalformedJSON.With("the request has data after the JSON object")
	}
	return fields, nil
}

func optionalString(fields map[string]json.RawMessage, name string) (*string, error) {
	v, ok := fields[name]
	if !ok || isNull(v) {
		return nil, nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return nil, ErrWrongType.With(fmt.Sprintf("%q must be a string", name))
	}
	return &s, nil
}

func isNull(v json.RawMessage) bool { return string(bytes.TrimSpace(v)) == "null" }

func jsonErrText(err error) string {
	if err == nil {
		return "null"
	}
	s := err.Error()
	if len(s) > 120 {
		s = s[:120]
	}
	return s
}
