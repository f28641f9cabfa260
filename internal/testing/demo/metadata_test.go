package demo

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/testing/security"
)

// negotiatedDocument is what the demo's negotiator ends with: Markdown
// without front matter, whose heading and first paragraph are not the
// name and description the negotiation settled on.
const negotiatedDocument = "# Protocol\n\nThe sender sends a JSON object; the receiver answers with a JSON object.\n\n## Request\n\n`{\"city\": string, \"date\": string}`\n"

// negotiate_protocol posts the document with its negotiated name and
// description; decide_protocol later reads them back from
// source.replace('protocol', 'metadata'), and from the list. Those must
// be what was posted, not the document's heading and first paragraph.
func TestDemoNameAndDescriptionWinOverTheFallback(t *testing.T) {
	eachEngine(t, security.Options{}, func(t *testing.T, s *security.Server) {
		const name, description = "Weather forecast exchange", "Ask for the forecast of a city on a date."
		res, id, source := submit(t, s, name, description, negotiatedDocument)
		if res.Status != 200 {
			t.Fatalf("submit: %d %s", res.Status, res.Body)
		}
		var published struct{ Hex, Publisher string }
		if json.Unmarshal(res.Body, &published) != nil || published.Hex == "" || published.Publisher != "anonymous" {
			t.Fatalf("submit answer %s", res.Body)
		}
		ourSource := s.URL + "/protocol/" + published.Hex // what agents put in protocolSources
		for _, metadataURL := range []string{
			strings.Replace(source, "protocol", "metadata", 1),                         // /metadata?id=<Base64>
			strings.Replace(ourSource, "protocol", "metadata", 1),                      // /metadata/<hex>
			s.URL + "/metadata/" + url.PathEscape(id),                                  // Base64 with %2F
			s.URL + "/metadata/" + strings.ToUpper(published.Hex),                      // any case
			s.URL + "/metadata/" + strings.NewReplacer("+", "-", "/", "_").Replace(id), // URL-safe Base64
		} {
			m := getMetadata(t, metadataURL)
			if m.Metadata.Name != name || m.Metadata.Description != description {
				t.Errorf("GET %s: %+v, want the posted name and description", metadataURL, m.Metadata)
			}
			if m.Publisher != "anonymous" { // the demo publishes without a token
				t.Errorf("GET %s: publisher %q, want anonymous", metadataURL, m.Publisher)
			}
		}
		l, _ := getList(t, s.URL)
		if len(l.Protocols) != 1 || l.Protocols[0].Name != name || l.Protocols[0].Description != description {
			t.Errorf("list: %+v", l.Protocols)
		}

		// The JSON API's publish takes them too.
		doc := "# Heading of a second document\n\nIts first paragraph.\n"
		r := call(t, "POST", s.URL+"/api/v1/protocols",
			pythonJSON("content", doc, "name", "Second protocol", "description", "Posted beside it."),
			"Authorization", "Bearer "+s.PublishToken)
		var view struct {
			Hex         string `json:"hex"`
			Title       string `json:"title"`
			Description string `json:"description"`
		}
		if r.Status != 201 || json.Unmarshal(r.Body, &view) != nil || view.Title != "Second protocol" || view.Description != "Posted beside it." {
			t.Fatalf("JSON publish: %d %s", r.Status, r.Body)
		}
		if m := getMetadata(t, s.URL+"/metadata/"+view.Hex); m.Metadata.Name != "Second protocol" {
			t.Errorf("metadata of the JSON publish: %+v", m.Metadata)
		}

		// Front matter is the document's own word and still wins.
		fm := "---\nname: Front Matter Name\ndescription: Front matter description.\n---\n\n# Heading\n"
		res, fmID, _ := submit(t, s, "Posted name", "Posted description.", fm)
		if res.Status != 200 {
			t.Fatalf("submit: %d %s", res.Status, res.Body)
		}
		if m := getMetadata(t, s.URL+"/metadata?"+url.Values{"id": {fmID}}.Encode()); m.Metadata.Name != "Front Matter Name" || m.Metadata.Description != "Front matter description." {
			t.Errorf("front matter lost to the posted metadata: %+v", m.Metadata)
		}
	})
}

// The path form answers errors like /protocol/{hash}.
func TestDemoMetadataPathErrors(t *testing.T) {
	eachEngine(t, security.Options{}, func(t *testing.T, s *security.Server) {
		for path, want := range map[string]string{
			"/metadata/not-a-hash":                               `"code":"malformed_hash"`,
			"/metadata/0000000000000000000000000000000000000000": `"code":"not_found"`,
			"/metadata/ab%2Fcd":                                  `"code":"malformed_hash"`,
		} {
			r := call(t, "GET", s.URL+path, "")
			if r.Status/100 != 4 || !strings.Contains(string(r.Body), want) {
				t.Errorf("GET %s: %d %s, want %s", path, r.Status, r.Body, want)
			}
		}
	})
}
