package translog_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/agora-registry/registry/internal/testing/security"
)

// TestRecordIDIsCanonical: a record is served (immutable) at one URL only;
// a signed, zero-padded or non-numeric id is 400 bad_record_id, a
// canonical one beyond the log (or past int64) 404 record_not_found.
func TestRecordIDIsCanonical(t *testing.T) {
	srv := security.Start(t, security.Options{})
	publish(t, srv, "Rec", 2)
	integrate(t, srv)
	for id, want := range map[string]string{
		"1": "", "+0": "bad_record_id", "-0": "bad_record_id", "00": "bad_record_id", "01": "bad_record_id",
		"abc": "bad_record_id", "1e3": "bad_record_id", "%31": "bad_record_id", "-1": "bad_record_id",
		"2": "record_not_found", "9223372036854775807": "record_not_found", "9223372036854775808": "record_not_found",
	} {
		status, _, body := get(t, srv.URL+"/log/record/"+id)
		var p struct{ Code string }
		_ = json.Unmarshal(body, &p)
		wantStatus := map[string]int{"": http.StatusOK, "bad_record_id": http.StatusBadRequest, "record_not_found": http.StatusNotFound}[want]
		if status != wantStatus || p.Code != want {
			t.Errorf("/log/record/%s: %d %q, want %d %q", id, status, p.Code, wantStatus, want)
		}
	}
}
