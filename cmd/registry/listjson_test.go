package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestListsPrintJSON: token, publisher and webhook list print a JSON array
// with --json, without secrets; token create --if-missing runs again
// without failing or printing a secret; webhook remove of an unknown id
// names webhooks.
func TestListsPrintJSON(t *testing.T) {
	db := "--data-dir=" + t.TempDir()
	code, secret, errOut := runWith(t, nil, "token", "create", "--name", "me", db)
	if code != 0 || !strings.HasPrefix(secret, "agr_") {
		t.Fatalf("token create: %d %q %s", code, secret, errOut)
	}
	code, again, errOut := runWith(t, nil, "token", "create", "--name", "me", "--if-missing", db)
	if code != 0 || again != "" || !strings.Contains(errOut, "exists already") {
		t.Fatalf("token create --if-missing of an existing name: %d %q %s", code, again, errOut)
	}
	if code, _, _ := runWith(t, nil, "token", "create", "--name", "me", db); code == 0 {
		t.Fatal("token create of an existing name without --if-missing succeeded")
	}
	code, second, _ := runWith(t, nil, "token", "create", "--name", "other", "--if-missing", db)
	if code != 0 || !strings.HasPrefix(second, "agr_") {
		t.Fatalf("token create --if-missing of a new name: %d %q", code, second)
	}
	if code, out, errOut := runWith(t, nil, "publisher", "create", "acme", "--display", "Acme", db); code != 0 {
		t.Fatalf("publisher create: %s %s", out, errOut)
	}
	if code, out, errOut := runWith(t, nil, "webhook", "add", "https://hooks.example/x", "--secret", "s3cret-s3cret-s3cret", db); code != 0 {
		t.Fatalf("webhook add: %s %s", out, errOut)
	}
	for _, tc := range []struct {
		args   []string
		want   string
		secret string
	}{
		{[]string{"token", "list"}, `"name": "other"`, strings.TrimSpace(secret)},
		{[]string{"publisher", "list"}, `"displayName": "Acme"`, ""},
		{[]string{"webhook", "list"}, `"url": "https://hooks.example/x"`, "s3cret"},
	} {
		code, out, errOut := runWith(t, nil, append(append(tc.args, "--json"), db)...)
		var rows []map[string]any
		if code != 0 || json.Unmarshal([]byte(out), &rows) != nil || len(rows) == 0 || !strings.Contains(out, tc.want) {
			t.Errorf("%v --json: %d %q %s", tc.args, code, out, errOut)
		}
		if tc.secret != "" && strings.Contains(out, tc.secret) {
			t.Errorf("%v --json prints a secret", tc.args)
		}
	}
	code, _, errOut = runWith(t, nil, "webhook", "remove", "99", db)
	if code == 0 || !strings.Contains(errOut, "no webhook with id 99") || strings.Contains(errOut, "protocol") {
		t.Errorf("webhook remove 99: %d %s", code, errOut)
	}
}
