package routine

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"
)

// Weather answers the Agora spec's "Weather Protocol v1": the body is
// {"location","date"}, the answer {"temperature" (°C), "precipitation"
// (mm), "weatherCondition" (sunny, cloudy, rainy or snowy)}. The forecast
// is derived from a hash of (location, date), so the same question always
// gets the same answer and examples and tests can rely on it.
type Weather struct{}

// Forecast is the Weather Protocol v1 answer.
type Forecast struct {
	Temperature      int     `json:"temperature"`
	Precipitation    float64 `json:"precipitation"`
	WeatherCondition string  `json:"weatherCondition"`
}

const maxLocationRunes = 200

// specForecasts are the answers the Agora spec's example shows, so the
// spec's weather example gives the spec's answer.
var specForecasts = map[string]Forecast{
	"london, uk\x002024-09-27": {Temperature: 11, Precipitation: 12, WeatherCondition: "rainy"},
}

var conditions = []string{"sunny", "cloudy", "rainy", "snowy"}

// Answer implements Routine. A body the protocol does not accept is still
// answered with status success, carrying an error message: the spec
// reserves "failure" for errors the protocol does not cover.
func (Weather) Answer(_ context.Context, req Request) (string, error) {
	var q struct {
		Location *string `json:"location"`
		Date     *string `json:"date"`
	}
	if err := json.Unmarshal([]byte(req.Body), &q); err != nil {
		return protocolError(`the body must be a JSON object {"location": string, "date": "YYYY-MM-DD"}`), nil
	}
	if q.Location == nil || strings.TrimSpace(*q.Location) == "" {
		return protocolError(`missing "location"`), nil
	}
	if utf8.RuneCountInString(*q.Location) > maxLocationRunes {
		return protocolError(`"location" is too long`), nil
	}
	if q.Date == nil {
		return protocolError(`missing "date"`), nil
	}
	if _, err := time.Parse(time.DateOnly, *q.Date); err != nil {
		return protocolError(`"date" must be a date written YYYY-MM-DD`), nil
	}
	out, _ := json.Marshal(ForecastFor(*q.Location, *q.Date))
	return string(out), nil
}

// ForecastFor is the deterministic forecast for a location and date.
// Locations are compared without case or surrounding space.
func ForecastFor(location, date string) Forecast {
	key := strings.ToLower(strings.TrimSpace(location)) + "\x00" + date
	if f, ok := specForecasts[key]; ok {
		return f
	}
	sum := sha256.Sum256([]byte(key))
	cond := conditions[int(sum[0])%len(conditions)]
	n := binary.BigEndian.Uint16(sum[1:3])
	f := Forecast{WeatherCondition: cond}
	switch cond {
	case "sunny":
		f.Temperature = 15 + int(n%21) // 15..35
	case "cloudy":
		f.Temperature = 5 + int(n%21) // 5..25
		f.Precipitation = float64(sum[3]%20) / 10
	case "rainy":
		f.Temperature = 3 + int(n%18) // 3..20
		f.Precipitation = float64(1 + int(sum[3])%30)
	case "snowy":
		f.Temperature = -15 + int(n%16) // -15..0
		f.Precipitation = float64(1 + int(sum[3])%15)
	}
	return f
}

func protocolError(msg string) string {
	out, _ := json.Marshal(map[string]string{"error": msg})
	return string(out)
}
