// Webhook deliveries of an Agora registry are signed as Standard Webhooks
// (https://www.standardwebhooks.com/): webhook-id, webhook-timestamp and
// webhook-signature headers beside the CloudEvents body. VerifyWebhook is
// what a receiver calls before it believes one.

package agora

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The headers of a signed delivery.
const (
	WebhookIDHeader        = "webhook-id"
	WebhookTimestampHeader = "webhook-timestamp"
	WebhookSignatureHeader = "webhook-signature"
	// WebhookSecretPrefix marks a secret whose key is the base64 after it.
	WebhookSecretPrefix = "whsec_"
	// DefaultWebhookTolerance is how far a delivery's timestamp may be from
	// the receiver's clock: a captured delivery replays for at most this long.
	DefaultWebhookTolerance = 5 * time.Minute
)

// Errors of VerifyWebhook, with stable codes.
var (
	ErrWebhookHeaders   = newError(KindUnauthenticated, "webhook_headers", "the delivery lacks a webhook-id, webhook-timestamp or webhook-signature header")
	ErrWebhookTimestamp = newError(KindUnauthenticated, "webhook_timestamp", "the delivery's webhook-timestamp is not within the tolerance of this clock: a replay, or a clock that is wrong")
	ErrWebhookSignature = newError(KindUnauthenticated, "webhook_signature", "no v1 signature of the delivery matches the secret")
)

// WebhookKey is the HMAC key of a webhook secret: for "whsec_<base64>"
// the bytes the base64 encodes, for any other secret (or one whose base64
// does not decode) the secret's own bytes.
func WebhookKey(secret string) []byte {
	if rest, ok := strings.CutPrefix(secret, WebhookSecretPrefix); ok {
		if key, err := base64.StdEncoding.DecodeString(rest); err == nil && len(key) > 0 {
			return key
		}
	}
	return []byte(secret)
}

// SignWebhook is the webhook-signature value of a delivery: "v1," and the
// base64 HMAC-SHA256, under the secret's key, of "id.timestamp.body" with
// the timestamp in Unix seconds.
func SignWebhook(secret, id string, timestamp time.Time, body []byte) string {
	return "v1," + base64.StdEncoding.EncodeToString(webhookMAC(WebhookKey(secret), id, strconv.FormatInt(timestamp.Unix(), 10), body))
}

func webhookMAC(key []byte, id, timestamp string, body []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id))
	m.Write([]byte{'.'})
	m.Write([]byte(timestamp))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

// VerifyWebhook checks a delivery as received: its webhook-timestamp is
// within tolerance of now (either way; tolerance <= 0 means
// DefaultWebhookTolerance) and one of the space-separated "v1,<base64>"
// signatures of webhook-signature (several while the sender rotates its
// secret) is the HMAC of "id.timestamp.body" under secret, compared in
// constant time. body must be the bytes received, before any parsing.
// A delivery is retried with the same webhook-id: keep the ids of the
// last tolerance to drop duplicates.
func VerifyWebhook(secret string, header http.Header, body []byte, now time.Time, tolerance time.Duration) error {
	id, stamp, sigs := header.Get(WebhookIDHeader), header.Get(WebhookTimestampHeader), header.Get(WebhookSignatureHeader)
	if id == "" || stamp == "" || sigs == "" {
		return ErrWebhookHeaders
	}
	if tolerance <= 0 {
		tolerance = DefaultWebhookTolerance
	}
	// Digits only: no sign, space or leading "+" a lax parser would let
	// through, so each timestamp has one spelling.
	if strings.Trim(stamp, "0123456789") != "" || len(stamp) > 12 {
		return ErrWebhookTimestamp.With("the delivery's webhook-timestamp is not Unix seconds")
	}
	secs, err := strconv.ParseInt(stamp, 10, 64)
	if err != nil {
		return ErrWebhookTimestamp.With("the delivery's webhook-timestamp is not Unix seconds")
	}
	if d := now.Sub(time.Unix(secs, 0)); d > tolerance || d < -tolerance {
		return ErrWebhookTimestamp
	}
	want := webhookMAC(WebhookKey(secret), id, stamp, body)
	for _, sig := range strings.Fields(sigs) {
		version, value, _ := strings.Cut(sig, ",")
		if got, err := base64.StdEncoding.DecodeString(value); version == "v1" && err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return ErrWebhookSignature
}
