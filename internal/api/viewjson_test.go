package api

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/protocol"
)

// TestAppendProtocolView holds appendProtocolView to encoding/json: every
// field filled (by reflection, so a field added to ProtocolView and not to
// the appender fails here), every optional field empty, and awkward text.
func TestAppendProtocolView(t *testing.T) {
	text := "Weather <&> \"quoted\" back\\slash\nline\t\u2028\u2029 é 𝄞 bad\xffutf8 ctl\x00\x1f"
	full := ProtocolView{}
	fillEveryField(t, reflect.ValueOf(&full).Elem(), text)
	empty := ProtocolView{Tags: []string{}, Lints: []protocol.Lint{}, Sources: []string{}}
	nils := ProtocolView{CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	zoned := ProtocolView{CreatedAt: time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.FixedZone("x", -(23*3600+59*60)))}
	for name, v := range map[string]ProtocolView{"full": full, "empty": empty, "nil slices": nils, "zoned": zoned} {
		var want bytes.Buffer
		if err := jsonEncode(&want, v); err != nil {
			t.Fatal(err)
		}
		if got := appendProtocolView(nil, &v); !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%s:\ngot  %s\nwant %s", name, got, want.Bytes())
		}
	}
}

// fillEveryField sets every field of a view to a value that is not empty.
func fillEveryField(t *testing.T, v reflect.Value, text string) {
	t.Helper()
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Interface().(type) {
		case string:
			f.SetString(text + " " + v.Type().Field(i).Name)
		case []string:
			f.Set(reflect.ValueOf([]string{text, "b"}))
		case bool:
			f.SetBool(true)
		case int:
			f.SetInt(123456)
		case time.Time:
			f.Set(reflect.ValueOf(time.Date(2026, 11, 30, 15, 4, 5, 123456789, time.UTC)))
		case []protocol.Lint:
			f.Set(reflect.ValueOf([]protocol.Lint{{Code: "truncated", Message: text}, {Code: "c", Message: "m"}}))
		case *string:
			s := text
			f.Set(reflect.ValueOf(&s))
		case *VersionsView:
			ref := VersionRef{Hex: "h", Title: text, Publisher: "p"}
			f.Set(reflect.ValueOf(&VersionsView{Newer: []VersionRef{ref, ref}, Claims: []VersionRef{ref}, SupersedesClaim: true}))
		default:
			t.Fatalf("ProtocolView.%s has a type (%s) the test cannot fill: teach it and appendProtocolView", v.Type().Field(i).Name, f.Type())
		}
	}
}

// A time encoding/json refuses takes writeJSON's path (and its error).
func TestWriteProtocolViewOutOfRangeTime(t *testing.T) {
	rec := httptest.NewRecorder()
	c := echo.New().NewContext(httptest.NewRequest(http.MethodPost, "/", nil), rec)
	v := ProtocolView{CreatedAt: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}
	if err := writeProtocolView(c, http.StatusCreated, &v); err == nil || !strings.Contains(err.Error(), "year") {
		t.Fatalf("err = %v, want encoding/json's year error", err)
	}
}
