package agora

import (
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"testing"
	"time"
)

// The Standard Webhooks reference libraries' signing example: a receiver
// using any of them reads our signatures.
func TestSignWebhookMatchesTheStandard(t *testing.T) {
	got := SignWebhook("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek",
		time.Unix(1614265330, 0), []byte(`{"test": 2432232314}`))
	if want := "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="; got != want {
		t.Fatalf("signature %s, want %s", got, want)
	}
}

// A secret not in whsec_ form keys the HMAC with its own bytes, which is
// what a standard library does given "whsec_" + base64(secret).
func TestWebhookKeyOfAPlainSecret(t *testing.T) {
	const plain = "a plain secret, 16+ chars"
	ts := time.Unix(1700000000, 0)
	if a, b := SignWebhook(plain, "id", ts, nil), SignWebhook(WebhookSecretPrefix+base64.StdEncoding.EncodeToString([]byte(plain)), "id", ts, nil); a != b {
		t.Fatalf("%s != %s", a, b)
	}
	if string(WebhookKey("whsec_not base64!")) != "whsec_not base64!" {
		t.Fatal("an undecodable whsec_ secret is its own bytes")
	}
}

const hookSecret = "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD"

var hookBody = []byte(`{"specversion":"1.0","id":"https://r.example/log/7","type":"org.agora-registry.publish","data":{"hex":"aa"}}`)

func delivery(secret, id string, at time.Time, body []byte) http.Header {
	h := http.Header{}
	h.Set(WebhookIDHeader, id)
	h.Set(WebhookTimestampHeader, strconv.FormatInt(at.Unix(), 10))
	h.Set(WebhookSignatureHeader, SignWebhook(secret, id, at, body))
	return h
}

// VerifyWebhook as an attacker meets it: every change to a delivery, and
// every replay older than the tolerance, is refused; only the genuine
// delivery within the tolerance passes.
func TestVerifyWebhook(t *testing.T) {
	sent := time.Unix(1767225600, 0)
	good := delivery(hookSecret, "msg_7", sent, hookBody)
	with := func(k, v string) http.Header {
		h := good.Clone()
		if v == "" {
			h.Del(k)
		} else {
			h.Set(k, v)
		}
		return h
	}
	tampered := append([]byte(nil), hookBody...)
	tampered[len(tampered)-3] = 'b'
	genuine := good.Get(WebhookSignatureHeader)
	for _, c := range []struct {
		name      string
		secret    string
		header    http.Header
		body      []byte
		now       time.Time
		tolerance time.Duration
		want      error
	}{
		{"genuine", hookSecret, good, hookBody, sent.Add(time.Second), 0, nil},
		{"at the tolerance", hookSecret, good, hookBody, sent.Add(DefaultWebhookTolerance), 0, nil},
		{"a receiver's clock behind", hookSecret, good, hookBody, sent.Add(-DefaultWebhookTolerance), 0, nil},
		{"replayed after five minutes", hookSecret, good, hookBody, sent.Add(DefaultWebhookTolerance + time.Second), 0, ErrWebhookTimestamp},
		{"replayed a day later", hookSecret, good, hookBody, sent.Add(24 * time.Hour), 0, ErrWebhookTimestamp},
		{"a zero tolerance is the default, not none", hookSecret, good, hookBody, sent.Add(time.Hour), 0, ErrWebhookTimestamp},
		{"a tighter tolerance", hookSecret, good, hookBody, sent.Add(time.Minute), 30 * time.Second, ErrWebhookTimestamp},
		{"from the future", hookSecret, good, hookBody, sent.Add(-DefaultWebhookTolerance - time.Second), 0, ErrWebhookTimestamp},
		{"a replay re-stamped now", hookSecret, with(WebhookTimestampHeader, strconv.FormatInt(sent.Add(time.Hour).Unix(), 10)), hookBody, sent.Add(time.Hour), 0, ErrWebhookSignature},
		{"tampered body", hookSecret, good, tampered, sent, 0, ErrWebhookSignature},
		{"body with a byte more", hookSecret, good, append(append([]byte(nil), hookBody...), ' '), sent, 0, ErrWebhookSignature},
		{"tampered id", hookSecret, with(WebhookIDHeader, "msg_8"), hookBody, sent, 0, ErrWebhookSignature},
		{"a shorter id", hookSecret, with(WebhookIDHeader, "msg"), hookBody, sent, 0, ErrWebhookSignature},
		{"wrong secret", "whsec_" + base64.StdEncoding.EncodeToString([]byte("another secret of 24 b!!")), good, hookBody, sent, 0, ErrWebhookSignature},
		{"the secret's text as a plain secret", "C2FVsBQIhrscChlQIMV+b5sSYspob7oD", good, hookBody, sent, 0, ErrWebhookSignature},
		{"rotation: any one of several", hookSecret, with(WebhookSignatureHeader, "v1,AAAA v1,bm90IGl0 "+genuine), hookBody, sent, 0, nil},
		{"only v1 counts", hookSecret, with(WebhookSignatureHeader, "v1a,"+genuine[3:]+" v2,"+genuine[3:]), hookBody, sent, 0, ErrWebhookSignature},
		{"no version", hookSecret, with(WebhookSignatureHeader, genuine[3:]), hookBody, sent, 0, ErrWebhookSignature},
		{"a truncated signature", hookSecret, with(WebhookSignatureHeader, genuine[:len(genuine)-4]), hookBody, sent, 0, ErrWebhookSignature},
		{"an empty signature", hookSecret, with(WebhookSignatureHeader, "v1,"), hookBody, sent, 0, ErrWebhookSignature},
		{"no id", hookSecret, with(WebhookIDHeader, ""), hookBody, sent, 0, ErrWebhookHeaders},
		{"no timestamp", hookSecret, with(WebhookTimestampHeader, ""), hookBody, sent, 0, ErrWebhookHeaders},
		{"no signature", hookSecret, with(WebhookSignatureHeader, ""), hookBody, sent, 0, ErrWebhookHeaders},
		{"a signed timestamp", hookSecret, with(WebhookTimestampHeader, "+"+good.Get(WebhookTimestampHeader)), hookBody, sent, 0, ErrWebhookTimestamp},
		{"a timestamp in milliseconds", hookSecret, with(WebhookTimestampHeader, strconv.FormatInt(sent.UnixMilli(), 10)), hookBody, sent, 0, ErrWebhookTimestamp},
		{"a timestamp not a number", hookSecret, with(WebhookTimestampHeader, "1e9"), hookBody, sent, 0, ErrWebhookTimestamp},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := VerifyWebhook(c.secret, c.header, c.body, c.now, c.tolerance)
			if c.want == nil && err != nil || c.want != nil && !errors.Is(err, c.want) {
				t.Fatalf("got %v, want %v", err, c.want)
			}
		})
	}
}
