package config

import (
	"errors"
	"flag"
	"io"
	"strings"
	"testing"
)

// Sizes take KiB/MiB/GiB suffixes everywhere; counts refuse them, so
// "--rate-burst 1KiB" cannot quietly mean 1,024 requests.
func TestSizesTakeSuffixesCountsRefuseThem(t *testing.T) {
	c, err := parseServe(t, []string{"--max-document-bytes", "4MiB", "--max-body-bytes", "5MiB", "--rate-burst", "300"}, map[string]string{"REGISTRY_CACHE_BYTES": "2GiB"})
	if err != nil {
		t.Fatal(err)
	}
	if c.MaxDocumentBytes != 4<<20 || c.MaxBodyBytes != 5<<20 || c.CacheBytes != 2<<30 || c.RateBurst != 300 {
		t.Fatalf("parsed %+v", c)
	}
	for _, args := range [][]string{{"--rate-burst", "1KiB"}, {"--publish-rate-burst", "1MiB"}} {
		if _, err := parseServe(t, args, nil); err == nil || !strings.Contains(err.Error(), "no unit") {
			t.Errorf("%v: err %v, want a count refusing the suffix", args, err)
		}
	}
	_, err = parseServe(t, nil, map[string]string{"REGISTRY_RATE_BURST": "1KiB"})
	var envErr *EnvError
	if !errors.As(err, &envErr) || envErr.Env != "REGISTRY_RATE_BURST" || envErr.Value != "1KiB" {
		t.Errorf("env count with a suffix: err %v, want an EnvError naming the variable and value", err)
	}
}

// Byte options are sizes and nothing else is: the flag name says which.
func TestByteOptionsAreSizes(t *testing.T) {
	for _, o := range allOptions() {
		_, isSize := o.Value.(sizeValue)
		bytesNamed := strings.HasSuffix(o.Flag, "-bytes") || strings.HasPrefix(o.Flag, "memory-")
		if isSize != bytesNamed {
			t.Errorf("--%s: size type %v, but its name says bytes: %v", o.Flag, isSize, bytesNamed)
		}
	}
}

// Import reads max-document-bytes from the same option as serve.
func TestImportSharesServesDocumentLimit(t *testing.T) {
	var imp Import
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if err := Parse(fs, imp.Options(), nil, func(k string) string { return map[string]string{"REGISTRY_MAX_DOCUMENT_BYTES": "4MiB"}[k] }); err != nil {
		t.Fatal(err)
	}
	if imp.MaxDocumentBytes != 4<<20 {
		t.Fatalf("import max document bytes %d, want 4MiB from REGISTRY_MAX_DOCUMENT_BYTES", imp.MaxDocumentBytes)
	}
	var serve Serve
	for _, so := range serve.Options() {
		for _, imo := range imp.Options() {
			if so.Flag == imo.Flag && (so.Env != imo.Env || so.Default != imo.Default || so.Usage != imo.Usage) {
				t.Errorf("--%s differs between serve and import", so.Flag)
			}
		}
	}
}

// Defaults in help read as sizes: 96MiB, not 100663296.
func TestHelpShowsSizesWithUnits(t *testing.T) {
	var c Serve
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	var help strings.Builder
	fs.SetOutput(&help)
	if err := Parse(fs, c.Options(), nil, func(string) string { return "" }); err != nil {
		t.Fatal(err)
	}
	fs.PrintDefaults()
	for _, want := range []string{"(default 96MiB)", "(default 1MiB)", "(default 64KiB)"} {
		if !strings.Contains(help.String(), want) {
			t.Errorf("help lacks %q", want)
		}
	}
	for _, n := range []int{0, 1000, 1 << 10, 3 << 20, 1<<30 + 1} {
		var got int
		v := sizeValue{&got, 0, 1 << 31}
		if err := v.Set(sizeValue{&n, 0, 0}.String()); err != nil || got != n {
			t.Errorf("size %d: round trip through %q gives %d, %v", n, sizeValue{&n, 0, 0}.String(), got, err)
		}
	}
}
