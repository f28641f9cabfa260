package protocol

import (
	"encoding/json"
	"os"
	"testing"
)

// hashVector is one entry of testdata/hash-vectors.json (a copy of the
// project's shared vectors). Its data_uri fields are for the agent's tests
// of data: protocol sources and are not read here.
type hashVector struct {
	Document string `json:"document"`
	Hex      string `json:"hex"`
	Base64   string `json:"base64"`
	Metadata *struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Multiround  bool   `json:"multiround"`
	} `json:"metadata"`
}

func loadHashVectors(t testing.TB) []hashVector {
	t.Helper()
	raw, err := os.ReadFile("testdata/hash-vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Vectors []hashVector `json:"vectors"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatalf("testdata/hash-vectors.json: %v", err)
	}
	if len(file.Vectors) == 0 {
		t.Fatal("testdata/hash-vectors.json has no vectors")
	}
	return file.Vectors
}
