package agora

import (
	"net/http"
	"testing"
)

// The client reads back what the server answers: every kind but Internal
// (a 5xx reads as Unavailable) survives the round trip through its status.
func TestKindSurvivesItsStatus(t *testing.T) {
	for k, s := range statusOf {
		want := k
		if k == KindInternal {
			want = KindUnavailable
		}
		if got := KindOfStatus(k.HTTPStatus()); got != want {
			t.Errorf("kind %v: status %d read back as %v, want %v", k, s, got, want)
		}
	}
	if KindOfStatus(http.StatusTeapot) != KindInvalid || KindOfStatus(http.StatusBadGateway) != KindUnavailable ||
		KindOfStatus(http.StatusFound) != KindUnavailable {
		t.Fatal("statuses outside the table")
	}
	if ErrorKind(255).HTTPStatus() != http.StatusInternalServerError {
		t.Fatal("an unknown kind must answer 500")
	}
}
