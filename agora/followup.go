package agora

import (
	"fmt"
)

// ErrProtocolChanged refuses a follow-up that names another protocol than
// the one its conversation was opened with (spec v0.2: follow-ups MUST NOT
// change protocol).
var ErrProtocolChanged = newError(KindInvalid, "protocol_changed", "a follow-up must not change the conversation's protocol")

// protocolRef is what a conversation was opened with: natural language,
// negotiation, or one protocol hash.
type protocolRef struct {
	natural, negotiation bool
	hash                 Digest
}

func (t Transaction) protocolRef() protocolRef {
	return protocolRef{natural: t.Natural, negotiation: t.Negotiation, hash: t.Hash}
}

func (p protocolRef) String() string {
	switch {
	case p.natural:
		return "natural language (protocolHash null)"
	case p.negotiation:
		return `"negotiation"`
	}
	return p.hash.Hex()
}

// FollowUp is a decoded multi-round follow-up.
type FollowUp struct {
	Body string
	// ProtocolHash is the follow-up's protocolHash, nil when it is missing
	// or null. The SDK repeats the opening request's value on every turn.
	ProtocolHash *string
}

// DecodeFollowUp reads a multi-round follow-up: an object with a "body"
// (string or JSON object) and, optionally, the conversation's protocolHash;
// other fields are ignored.
func DecodeFollowUp(raw []byte) (FollowUp, error) {
	var f FollowUp
	fields, err := decodeObject(raw)
	if err != nil {
		return f, err
	}
	if f.ProtocolHash, err = optionalString(fields, "protocolHash"); err != nil {
		return f, err
	}
	f.Body, err = bodyText(fields)
	return f, err
}

// sameProtocol accepts a follow-up's protocolHash when it is missing or
// names the conversation's protocol, in either spelling.
func (p protocolRef) sameProtocol(hash *string) error {
	if hash == nil {
		return nil
	}
	var got protocolRef
	if *hash == Negotiation {
		got.negotiation = true
	} else {
		d, err := ParseDigest(*hash)
		if err != nil {
			return wrapError(KindInvalid, "malformed_hash",
				`"protocolHash" must be null, "negotiation", 40 hex characters or 28 Base64 characters`, err)
		}
		got.hash = d
	}
	if got != p {
		return ErrProtocolChanged.With(fmt.Sprintf("this conversation uses %s; a follow-up naming %s must start a new conversation", p, got))
	}
	return nil
}
