package agora

import (
	"crypto"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"filippo.io/torchwood"
	"golang.org/x/mod/sumdb/note"
)

// Errors of witnessed checkpoints (c2sp.org/tlog-cosignature).
var (
	ErrBadWitnessKey = newError(KindInvalid, "bad_witness_key", "a witness key is not a cosignature verifier key (name+hash+base64 of 0x04 and an Ed25519 public key)")
	ErrBadPolicy     = newError(KindInvalid, "bad_witness_policy", "the witness policy is not usable")
	// ErrBadCosignature refuses a checkpoint carrying a cosignature line
	// under a configured witness's key that does not verify over it: only
	// a lying server or tampering on the way writes one.
	ErrBadCosignature = newError(KindInvalid, "bad_cosignature", "a configured witness's cosignature on the checkpoint does not verify")
	// ErrNoQuorum says too few configured witnesses cosigned: the
	// checkpoint may be true, but nothing shows that others saw the same
	// tree. It is never evidence of a fork.
	ErrNoQuorum = newError(KindUnavailable, "witness_quorum", "the checkpoint lacks the cosignatures the witness policy requires")
)

// MaxCosignatureSkew is how far in the future a cosignature's timestamp
// may be (clocks differ) before it does not count (c2sp.org/tlog-cosignature
// lets verifiers reject future timestamps).
const MaxCosignatureSkew = 10 * time.Minute

// WitnessPolicy is what a client requires of a log's checkpoint before it
// believes it: the log's signature (a note verifier key) and cosignatures
// (c2sp.org/tlog-cosignature, Ed25519) from at least Quorum distinct keys
// of WitnessKeys. A key listed twice counts once; cosignatures under other
// keys are ignored.
type WitnessPolicy struct {
	LogKey      string
	WitnessKeys []string
	Quorum      int
}

// CosignedCheckpoint is a checkpoint that met a WitnessPolicy.
type CosignedCheckpoint struct {
	LogCheckpoint
	// Witnesses are the names of the witnesses whose cosignatures counted,
	// Times when each signed.
	Witnesses []string
	Times     []time.Time
}

// Origin is the policy's log origin (its key's name), or "" for a key
// that does not parse.
func (p WitnessPolicy) Origin() string {
	v, err := note.NewVerifier(p.LogKey)
	if err != nil {
		return ""
	}
	return v.Name()
}

// Check reports whether the policy's keys parse and its quorum can be met.
func (p WitnessPolicy) Check() error {
	_, _, err := p.verifiers()
	return err
}

// verifiers parses the log key and the distinct witness keys.
func (p WitnessPolicy) verifiers() (note.Verifier, []note.Verifier, error) {
	logV, err := note.NewVerifier(p.LogKey)
	if err != nil {
		return nil, nil, wrapError(ErrBadVerifierKey.Kind, ErrBadVerifierKey.Code, ErrBadVerifierKey.Message, err)
	}
	var ws []note.Verifier
	seen := map[string]string{} // public key → the name it is listed under
	for _, k := range p.WitnessKeys {
		v, pub, err := ParseWitnessKey(k)
		if err != nil {
			return nil, nil, err
		}
		if name, ok := seen[string(pub)]; ok {
			if name != v.Name() {
				// One Ed25519 cosignature verifies under any name: two names
				// for one key would count one witness twice.
				return nil, nil, ErrBadPolicy.With(fmt.Sprintf("witnesses %q and %q have the same public key", name, v.Name()))
			}
			continue
		}
		if v.Name() == logV.Name() && v.KeyHash() == logV.KeyHash() {
			return nil, nil, ErrBadPolicy.With("a witness key has the log key's name and key hash")
		}
		seen[string(pub)] = v.Name()
		ws = append(ws, v)
	}
	if p.Quorum < 0 || p.Quorum > len(ws) {
		return nil, nil, ErrBadPolicy.With(fmt.Sprintf("a quorum of %d cannot be met by %d distinct witness keys", p.Quorum, len(ws)))
	}
	return logV, ws, nil
}

// ParseWitnessKey reads a witness's cosignature verifier key
// (c2sp.org/tlog-cosignature: name+hash+base64(0x04 || Ed25519 key)). The
// verifier is torchwood's; the key must be the one it writes back.
func ParseWitnessKey(vkey string) (note.Verifier, ed25519.PublicKey, error) {
	name, rest, _ := strings.Cut(vkey, "+")
	_, b64, _ := strings.Cut(rest, "+")
	raw, err := base64.StdEncoding.Strict().DecodeString(b64)
	if err != nil || len(raw) != 1+ed25519.PublicKeySize || raw[0] != 0x04 {
		return nil, nil, ErrBadWitnessKey.With(fmt.Sprintf("%q is not a cosignature/v1 key (name+hash+base64 of 0x04 and 32 bytes)", vkey))
	}
	pub := ed25519.PublicKey(raw[1:])
	s, err := torchwood.NewCosignatureSigner(name, publicKeyOnly{pub})
	if err != nil {
		return nil, nil, ErrBadWitnessKey.With(fmt.Sprintf("%q: %v", vkey, err))
	}
	v := s.Verifier()
	if v.String() != vkey {
		return nil, nil, ErrBadWitnessKey.With(fmt.Sprintf("%q: its key hash is not the one of its name and key", vkey))
	}
	return v, pub, nil
}

// publicKeyOnly lets torchwood build a cosignature verifier from a public
// key (v0.6.1 builds one only from a signer); it never signs.
type publicKeyOnly struct{ pub ed25519.PublicKey }

func (k publicKeyOnly) Public() crypto.PublicKey { return k.pub }
func (publicKeyOnly) Sign(io.Reader, []byte, crypto.SignerOpts) ([]byte, error) {
	return nil, errors.New("a verifier key cannot sign")
}

// Open verifies a cosigned checkpoint: the log's signature, then at least
// Quorum valid cosignatures from distinct configured witnesses. A
// cosignature line under a configured witness's key that does not verify
// (over another checkpoint, or forged) refuses the whole checkpoint
// (ErrBadCosignature); one dated more than MaxCosignatureSkew ahead does
// not count. Too few is ErrNoQuorum.
func (p WitnessPolicy) Open(msg []byte) (CosignedCheckpoint, error) {
	logV, ws, err := p.verifiers()
	if err != nil {
		return CosignedCheckpoint{}, err
	}
	n, err := note.Open(msg, note.VerifierList(append([]note.Verifier{logV}, ws...)...))
	var bad *note.InvalidSignatureError
	switch {
	case errors.As(err, &bad) && (bad.Name != logV.Name() || bad.Hash != logV.KeyHash()):
		return CosignedCheckpoint{}, ErrBadCosignature.With(fmt.Sprintf("the cosignature of witness %q does not verify over this checkpoint", bad.Name))
	case err != nil:
		return CosignedCheckpoint{}, ErrBadLogCheckpoint.With("the checkpoint's signature does not verify with the log's key: " + err.Error())
	}
	signed := false
	for _, s := range n.Sigs {
		signed = signed || (s.Name == logV.Name() && s.Hash == logV.KeyHash())
	}
	if !signed {
		return CosignedCheckpoint{}, ErrBadLogCheckpoint.With(fmt.Sprintf("the checkpoint carries no signature of the log's key %s", logV.Name()))
	}
	c, err := ParseLogCheckpoint(n.Text)
	if err != nil {
		return CosignedCheckpoint{}, err
	}
	if c.Origin != logV.Name() {
		return CosignedCheckpoint{}, ErrBadLogCheckpoint.With(fmt.Sprintf("the checkpoint is of log %q, not %q", c.Origin, logV.Name()))
	}
	out := CosignedCheckpoint{LogCheckpoint: c}
	var future []string
	latest := time.Now().Add(MaxCosignatureSkew).Unix()
	for _, s := range n.Sigs {
		if s.Name == logV.Name() && s.Hash == logV.KeyHash() {
			continue
		}
		// note.Open verified it and kept one per key; its timestamp is
		// torchwood's reading of the signature.
		ts, err := torchwood.CosignatureTimestamp(s)
		if err != nil {
			return CosignedCheckpoint{}, ErrBadCosignature.With(fmt.Sprintf("the cosignature of witness %q has no timestamp", s.Name))
		}
		if ts > latest {
			future = append(future, s.Name)
			continue
		}
		out.Witnesses = append(out.Witnesses, s.Name)
		out.Times = append(out.Times, time.Unix(ts, 0).UTC())
	}
	if len(out.Witnesses) < p.Quorum {
		var missing []string
		for _, w := range ws {
			if !slices.Contains(out.Witnesses, w.Name()) {
				missing = append(missing, w.Name())
			}
		}
		why := fmt.Sprintf("%d of the %d configured witnesses cosigned the checkpoint of size %d; the policy requires %d (not cosigned by: %s)",
			len(out.Witnesses), len(ws), c.N, p.Quorum, strings.Join(missing, ", "))
		if len(future) > 0 {
			why += fmt.Sprintf("; not counted, dated more than %s ahead: %s", MaxCosignatureSkew, strings.Join(future, ", "))
		}
		return CosignedCheckpoint{}, ErrNoQuorum.With(why)
	}
	return out, nil
}
