package translog

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"golang.org/x/mod/sumdb/note"

	"github.com/agora-registry/registry/internal/regularfile"
)

// Key is the log's signing key and the verifier key readers pin.
type Key struct {
	Signer      note.Signer
	VerifierKey string // note verifier key: origin+hash+base64
}

// KeySource is where a stored key lives (the store).
type KeySource interface {
	LogSigningKey(ctx context.Context, generate func() (string, error)) (string, error)
}

// LoadKey reads the signing key from keyFile when given, else from the
// store, which generates one named origin on first start.
func LoadKey(ctx context.Context, src KeySource, keyFile, origin string) (Key, error) {
	var skey string
	if keyFile != "" {
		b, err := readKeyFile(keyFile)
		if err != nil {
			return Key{}, err
		}
		skey = strings.TrimSpace(string(b))
	} else {
		var err error
		skey, err = src.LogSigningKey(ctx, func() (string, error) { return GenerateKey(origin) })
		if err != nil {
			return Key{}, fmt.Errorf("loading the log's signing key: %w", err)
		}
	}
	return ParseKey(skey)
}

// maxKeyFileBytes bounds a key file's read (a note signer key is about
// 100 bytes).
const maxKeyFileBytes = 4 << 10

// readKeyFile reads the signing key's file: a regular file (opening a FIFO
// does not block, and is refused), readable and writable by its owner only,
// as ssh demands of a private key: anyone else who can read it can sign a
// forked history of the log.
func readKeyFile(path string) ([]byte, error) {
	f, fi, err := regularfile.Open(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("reading the log key file: %w", err)
	}
	defer f.Close()
	if perm := fi.Mode().Perm(); perm&0o077 != 0 && runtime.GOOS != "windows" {
		return nil, fmt.Errorf("the log key file %s is accessible by group or others (mode %04o), so anyone on the machine could sign a forked log; run: chmod 600 %s", path, perm, path)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxKeyFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading the log key file: %w", err)
	}
	if len(b) > maxKeyFileBytes {
		return nil, fmt.Errorf("the log key file %s is larger than %d bytes; it should hold one note signer key (registry log-key ORIGIN)", path, maxKeyFileBytes)
	}
	return b, nil
}

// GenerateKey makes a new Ed25519 signer key for the log named origin.
func GenerateKey(origin string) (string, error) {
	skey, _, err := note.GenerateKey(rand.Reader, origin)
	if err != nil {
		return "", fmt.Errorf("generating the log's signing key for origin %q: %w", origin, err)
	}
	return skey, nil
}

// ParseKey reads a note signer key (PRIVATE+KEY+name+hash+base64) and
// derives its verifier key.
func ParseKey(skey string) (Key, error) {
	signer, err := note.NewSigner(skey)
	if err != nil {
		return Key{}, fmt.Errorf("the log key is not a note signer key (PRIVATE+KEY+name+hash+key): %w", err)
	}
	// note offers no public half of a signer; the key's last field is the
	// algorithm byte (1: Ed25519) and the seed.
	// (The name holds no '+'; the key's base64 may.)
	fields := strings.SplitN(skey, "+", 5)
	raw, err := base64.StdEncoding.DecodeString(fields[len(fields)-1])
	if err != nil || len(raw) != 1+ed25519.SeedSize || raw[0] != 1 {
		return Key{}, fmt.Errorf("the log key is not an Ed25519 note key")
	}
	pub := ed25519.NewKeyFromSeed(raw[1:]).Public().(ed25519.PublicKey)
	vkey, err := note.NewEd25519VerifierKey(signer.Name(), pub)
	if err != nil {
		return Key{}, err
	}
	v, err := note.NewVerifier(vkey)
	if err != nil || v.KeyHash() != signer.KeyHash() {
		return Key{}, fmt.Errorf("the log key's verifier key does not match it")
	}
	return Key{Signer: signer, VerifierKey: vkey}, nil
}
