package translog

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/agora-registry/registry/agora"
)

// Retry is a Registry that tries each request again on a transient
// failure (the registry unreachable, a timeout, 429, 5xx, an answer cut
// short or not JSON): a passing outage must not be read as anything but
// "could not check", and one blip should not even be that. Other answers
// (404, 410, wrong bytes) are returned at once: they are evidence.
type Retry struct {
	Registry
	// Attempts is how many times a request is sent (at least 1);
	// Backoff the wait before the second, doubling after each.
	Attempts int
	Backoff  time.Duration
}

// Transient reports whether err is a failure worth trying again.
func Transient(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	if problemCode(err) == "corrupt_document" {
		return false // damage that stays: asking again only repeats it
	}
	if s := httpStatus(err); s != 0 {
		return s >= 500 || s == http.StatusTooManyRequests || s == http.StatusRequestTimeout
	}
	return errors.Is(err, agora.ErrRegistryUnreachable) || errors.Is(err, agora.ErrRegistryBadAnswer) ||
		errors.Is(err, context.DeadlineExceeded)
}

// Retried runs f, a request to r's registry, as r runs its own.
func Retried[T any](ctx context.Context, r Retry, f func() (T, error)) (T, error) {
	wait := r.Backoff
	for i := 1; ; i++ {
		v, err := f()
		if err == nil || i >= r.Attempts || !Transient(err) || ctx.Err() != nil {
			return v, err
		}
		if serr := sleep(ctx, wait); serr != nil {
			return v, err
		}
		wait *= 2
	}
}

func (r Retry) LogCheckpoint(ctx context.Context) ([]byte, error) {
	return Retried(ctx, r, func() ([]byte, error) { return r.Registry.LogCheckpoint(ctx) })
}

func (r Retry) LogTile(ctx context.Context, path string) ([]byte, error) {
	return Retried(ctx, r, func() ([]byte, error) { return r.Registry.LogTile(ctx, path) })
}

func (r Retry) LogLookup(ctx context.Context, d agora.Digest) ([]byte, error) {
	return Retried(ctx, r, func() ([]byte, error) { return r.Registry.LogLookup(ctx, d) })
}

func (r Retry) Fetch(ctx context.Context, d agora.Digest) ([]byte, error) {
	return Retried(ctx, r, func() ([]byte, error) { return r.Registry.Fetch(ctx, d) })
}

func (r Retry) Get(ctx context.Context, d agora.Digest, withContent bool) (agora.Protocol, error) {
	return Retried(ctx, r, func() (agora.Protocol, error) { return r.Registry.Get(ctx, d, withContent) })
}

func (r Retry) JSON(ctx context.Context, method, path string, body []byte) (json.RawMessage, error) {
	return Retried(ctx, r, func() (json.RawMessage, error) { return r.Registry.JSON(ctx, method, path, body) })
}
