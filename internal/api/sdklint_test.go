package api

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store/sqlite"
)

// The JSON view's sdkCompatible, multiround and lints say what the Python
// SDK's extract_metadata does with the document (protocol.ReadLikeSDK).
func TestProtocolViewSaysWhatTheSDKDoes(t *testing.T) {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc := registry.New(st, registry.Config{PublicURL: "http://registry.test"})
	ts := httptest.NewServer(New(svc, Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}).Handler())
	t.Cleanup(ts.Close)

	cases := []struct {
		name, doc            string
		compatible, multiple bool
		code, message        string
	}{
		{"front matter after a heading", "# Title\n\nIntro.\n\n---\nname: Later\ndescription: d\n---\n", true, false,
			protocol.LintSDKName, `the SDK will name this "Later" (the registry shows "Title")`},
		{"closed by ...", "---\nname: Dots\ndescription: d\n...\n# Dots\n", false, false,
			protocol.LintNoFrontMatter, "the SDK cannot read this document"},
		{"quoted false", "---\nname: Q\ndescription: d\nmultiround: \"false\"\n---\n", true, true,
			protocol.LintSDKMultiround, "the SDK will send multiround: true"},
		{"no name", "---\ndescription: d\n---\n# Heading\n", true, false,
			protocol.LintSDKName, `the SDK will call this document "Unnamed protocol"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := svc.Publish(context.Background(), []byte(c.doc), nil, "")
			if err != nil {
				t.Fatal(err)
			}
			resp, body := get(t, ts.URL+"/api/v1/protocols/"+res.Entry.Digest.Hex(), "application/json")
			var view struct {
				SDKCompatible bool            `json:"sdkCompatible"`
				Multiround    bool            `json:"multiround"`
				Lints         []protocol.Lint `json:"lints"`
			}
			if resp.StatusCode != 200 || json.Unmarshal([]byte(body), &view) != nil {
				t.Fatalf("status %d, body %s", resp.StatusCode, body)
			}
			if view.SDKCompatible != c.compatible || view.Multiround != c.multiple {
				t.Errorf("sdkCompatible %v, multiround %v; want %v, %v", view.SDKCompatible, view.Multiround, c.compatible, c.multiple)
			}
			found := false
			for _, l := range view.Lints {
				found = found || (l.Code == c.code && strings.Contains(l.Message, c.message))
			}
			if !found {
				t.Errorf("lints %v lack %s %q", view.Lints, c.code, c.message)
			}
		})
	}
}
