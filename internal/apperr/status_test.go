package apperr

import (
	"net/http"
	"testing"
)

// The client reads back what the server answers: every kind but Internal
// (a 5xx reads as Unavailable) survives the round trip through its status.
func TestKindSurvivesItsStatus(t *testing.T) {
	for k, s := range statusOf {
		want := k
		if k == Internal {
			want = Unavailable
		}
		if got := KindOfStatus(HTTPStatus(k)); got != want {
			t.Errorf("kind %v: status %d read back as %v, want %v", k, s, got, want)
		}
	}
	if KindOfStatus(http.StatusTeapot) != Invalid || KindOfStatus(http.StatusBadGateway) != Unavailable ||
		KindOfStatus(http.StatusFound) != Unavailable {
		t.Fatal("statuses outside the table")
	}
	if HTTPStatus(Kind(255)) != http.StatusInternalServerError {
		t.Fatal("an unknown kind must answer 500")
	}
}
