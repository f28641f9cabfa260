package routine

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestWeatherDeterministic(t *testing.T) {
	ctx := context.Background()
	body := `{"location": "London, UK", "date": "2024-09-27"}`
	a, err := Weather{}.Answer(ctx, Request{Body: body})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Weather{}.Answer(ctx, Request{Body: `{"date":"2024-09-27","location":"  london, uk "}`})
	if a != b {
		t.Fatalf("same question, different answers: %s vs %s", a, b)
	}
	var f Forecast
	if err := json.Unmarshal([]byte(a), &f); err != nil {
		t.Fatal(err)
	}
	if f != ForecastFor("London, UK", "2024-09-27") {
		t.Fatalf("answer %s differs from ForecastFor", a)
	}
	seen := map[string]bool{}
	for i := 1; i <= 28; i++ {
		f := ForecastFor("Zurich", time.Date(2024, 2, i, 0, 0, 0, 0, time.UTC).Format(time.DateOnly))
		seen[f.WeatherCondition] = true
		if f.Precipitation < 0 || (f.WeatherCondition == "sunny" && f.Precipitation != 0) {
			t.Fatalf("implausible forecast %+v", f)
		}
	}
	if len(seen) < 3 {
		t.Fatalf("forecasts do not vary: %v", seen)
	}
}

func TestWeatherProtocolErrorsAreAnswers(t *testing.T) {
	for _, body := range []string{"", "not json", `[]`, `{"location": 3, "date": "2024-09-27"}`, `{"date": "2024-09-27"}`, `{"location": "x"}`, `{"location": "x", "date": "27/09/2024"}`} {
		out, err := Weather{}.Answer(context.Background(), Request{Body: body})
		if err != nil {
			t.Fatalf("%q: a protocol-covered error became a failure: %v", body, err)
		}
		var e struct{ Error string }
		if json.Unmarshal([]byte(out), &e) != nil || e.Error == "" {
			t.Fatalf("%q: answer %q carries no error message", body, out)
		}
	}
}

func TestExec(t *testing.T) {
	ctx := context.Background()
	out, err := (&Exec{Command: "tr", Args: []string{"a-z", "A-Z"}}).Answer(ctx, Request{Body: "hello"})
	if err != nil || out != "HELLO" {
		t.Fatalf("got %q, %v", out, err)
	}
	_, err = (&Exec{Command: "sh", Args: []string{"-c", "echo oops >&2; exit 3"}}).Answer(ctx, Request{})
	if !errors.Is(err, ErrCrashed) || !strings.Contains(err.Error(), "oops") {
		t.Fatalf("non-zero exit: %v", err)
	}
	_, err = (&Exec{Command: "sh", Args: []string{"-c", "yes | head -c 5000"}, MaxOutput: 100}).Answer(ctx, Request{})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("output limit: %v", err)
	}
	_, err = (&Exec{Command: "/nonexistent/routine"}).Answer(ctx, Request{})
	if !errors.Is(err, ErrCrashed) {
		t.Fatalf("missing command: %v", err)
	}
}

func TestExecHangingIsKilledWithItsChildren(t *testing.T) {
	// The shell starts a grandchild that holds stdout open; killing only the
	// shell would leave Run waiting on the pipe.
	e := &Exec{Command: "sh", Args: []string{"-c", "sleep 60 & sleep 60"}, Timeout: 200 * time.Millisecond}
	_, err := e.Answer(context.Background(), Request{})
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
}

func TestHTTPRoutine(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		switch r.URL.Path {
		case "/echo":
			w.Write([]byte(r.Header.Get("Content-Type") + "|" + string(b)))
		case "/big":
			w.Write([]byte(strings.Repeat("x", 200)))
		case "/hang":
			<-r.Context().Done()
		default:
			http.Error(w, "no", http.StatusInternalServerError)
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	out, err := (&HTTP{URL: srv.URL + "/echo"}).Answer(ctx, Request{Body: `{"a":1}`})
	if err != nil || out != `application/json|{"a":1}` {
		t.Fatalf("got %q, %v", out, err)
	}
	if _, err := (&HTTP{URL: srv.URL + "/big", MaxResponse: 100}).Answer(ctx, Request{}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("size limit: %v", err)
	}
	if _, err := (&HTTP{URL: srv.URL + "/fail"}).Answer(ctx, Request{}); !errors.Is(err, ErrCrashed) {
		t.Fatalf("500: %v", err)
	}
	if _, err := (&HTTP{URL: srv.URL + "/hang", Timeout: 100 * time.Millisecond}).Answer(ctx, Request{}); !errors.Is(err, ErrTimeout) {
		t.Fatalf("hang: %v", err)
	}
}

func TestWeatherSpecExample(t *testing.T) {
	out, err := Weather{}.Answer(context.Background(), Request{Body: `{"location": "London, UK", "date": "2024-09-27"}`})
	if err != nil || out != `{"temperature":11,"precipitation":12,"weatherCondition":"rainy"}` {
		t.Fatalf("got %s, %v", out, err)
	}
}
