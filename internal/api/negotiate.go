package api

import (
	"mime"
	"net/http"
	"strconv"
	"strings"
)

// WantsHTML reports whether the client prefers HTML to JSON: text/html (or
// XHTML) is listed explicitly with a quality at least that of JSON. A bare
// "*/*" (curl, most libraries) means JSON, so scripts get data by default.
func WantsHTML(r *http.Request) bool {
	var htmlQ, jsonQ float64 = -1, -1
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		q := 1.0
		if v, ok := params["q"]; ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				q = f
			}
		}
		switch mt {
		case "text/html", "application/xhtml+xml":
			htmlQ = max(htmlQ, q)
		case "application/json", "application/problem+json":
			jsonQ = max(jsonQ, q)
		}
	}
	return htmlQ > 0 && htmlQ >= jsonQ
}
