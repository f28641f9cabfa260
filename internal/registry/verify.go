package registry

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"net"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/entity"
)

// Domain verification: the registry hands a publisher a challenge, the
// publisher serves it at WellKnownPublisherPath on its domain, and the
// registry fetches it there through the SSRF guard (Fetcher).
const (
	WellKnownPublisherPath = "/.well-known/agora-publisher"
	challengePrefix        = "agora-publisher-verification="
	// MaxChallengeFileBytes caps what a verification reads of the file.
	MaxChallengeFileBytes = 4096
)

// Fetcher gets a URL chosen by a stranger (agora.Fetcher: SSRF guard,
// redirects guarded, size and time capped).
type Fetcher interface {
	Get(ctx context.Context, rawURL string, maxBytes int) ([]byte, error)
}

// Errors of domain verification.
var (
	ErrBadDomain = apperr.New(apperr.Invalid, "invalid_domain",
		"a domain is a DNS name such as example.org (optionally with :port), at most 253 characters")
	ErrNoChallenge = apperr.New(apperr.Invalid, "no_challenge",
		"no verification is pending for this domain: run registry publisher verify NAME --domain DOMAIN first")
	ErrChallengeNotServed = apperr.New(apperr.Forbidden, "challenge_not_served",
		"the domain's "+WellKnownPublisherPath+" does not hold the challenge")
)

var domainLabel = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)

// CheckDomain normalises and checks a domain (host, optionally :port).
func CheckDomain(domain string) (string, error) {
	domain = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(domain)), ".")
	host := domain
	if h, port, err := net.SplitHostPort(domain); err == nil {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return "", ErrBadDomain
		}
		host = h
	}
	if len(domain) == 0 || len(domain) > 253 {
		return "", ErrBadDomain
	}
	if net.ParseIP(host) != nil {
		return domain, nil // loopback tests and private deployments; the guard decides
	}
	for _, l := range strings.Split(host, ".") {
		if !domainLabel.MatchString(l) {
			return "", ErrBadDomain
		}
	}
	return domain, nil
}

// Challenge is what a publisher serves to prove a domain.
type Challenge struct {
	Domain string
	Token  string
	URL    string // where the registry looks for it
}

// IssueChallenge starts (or restarts) the verification of domain for a
// publisher; scheme is "https" except in loopback tests.
func (s *Service) IssueChallenge(ctx context.Context, publisher, domain, scheme string) (Challenge, error) {
	domain, err := CheckDomain(domain)
	if err != nil {
		return Challenge{}, err
	}
	if _, err := s.Publisher(ctx, publisher); err != nil {
		return Challenge{}, err
	}
	var raw [24]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return Challenge{}, apperr.Wrap(apperr.Internal, "internal", "cannot generate a challenge", err)
	}
	token := challengePrefix + base64.RawURLEncoding.EncodeToString(raw[:])
	if err := s.store.SetChallenge(ctx, publisher, domain, token); err != nil {
		return Challenge{}, err
	}
	return Challenge{Domain: domain, Token: token, URL: challengeURL(scheme, domain)}, nil
}

func challengeURL(scheme, domain string) string {
	if scheme == "" {
		scheme = "https"
	}
	return scheme + "://" + domain + WellKnownPublisherPath
}

// CheckChallenge fetches the pending challenge from its domain and, when
// one line of the file is exactly the challenge, marks the domain verified.
func (s *Service) CheckChallenge(ctx context.Context, publisher, domain, scheme string, f Fetcher) (entity.Publisher, error) {
	domain, err := CheckDomain(domain)
	if err != nil {
		return entity.Publisher{}, err
	}
	p, err := s.Publisher(ctx, publisher)
	if err != nil {
		return entity.Publisher{}, err
	}
	if p.Challenge == "" || p.ChallengeDomain != domain {
		return entity.Publisher{}, ErrNoChallenge
	}
	body, err := f.Get(ctx, challengeURL(scheme, domain), MaxChallengeFileBytes)
	if e := apperr.As(err); e != nil && e.Code == codeFetchBlocked {
		return entity.Publisher{}, apperr.New(apperr.Forbidden, codeFetchBlocked,
			"the domain resolves (or redirects) to a private, loopback or reserved address; refused (list it in --outbound-allow / REGISTRY_OUTBOUND_ALLOW to permit)")
	}
	if err != nil {
		return entity.Publisher{}, err
	}
	if !holdsLine(body, p.Challenge) {
		return entity.Publisher{}, ErrChallengeNotServed.With("the file at " + challengeURL(scheme, domain) +
			" has no line that is exactly the challenge")
	}
	if err := s.store.MarkVerified(ctx, publisher, domain, time.Now()); err != nil {
		return entity.Publisher{}, err
	}
	return s.store.GetPublisher(ctx, publisher)
}

func holdsLine(body []byte, line string) bool {
	for _, l := range bytes.Split(body, []byte("\n")) {
		if string(bytes.TrimSpace(l)) == line {
			return true
		}
	}
	return false
}
