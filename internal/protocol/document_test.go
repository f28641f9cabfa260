package protocol

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/apperr"
)

func TestValidateRefusesBadDocuments(t *testing.T) {
	cases := []struct {
		name    string
		doc     []byte
		want    error
		message string
	}{
		{"empty", []byte{}, ErrEmptyDocument, "empty"},
		{"nil", nil, ErrEmptyDocument, "empty"},
		{"NUL byte", []byte("# Title\n\x00rest"), ErrNULByte, "offset 8"},
		{"NUL first", []byte("\x00"), ErrNULByte, "offset 0"},
		{"invalid UTF-8", []byte("abc\xffdef"), ErrInvalidUTF8, "offset 3"},
		{"truncated UTF-8 sequence", []byte("caf\xc3"), ErrInvalidUTF8, "offset 3"},
		{"UTF-16 surrogate encoded in UTF-8", []byte("a\xed\xa0\x80"), ErrInvalidUTF8, "offset 1"},
		{"over-long encoding of '/'", []byte("\xc0\xaf"), ErrInvalidUTF8, "offset 0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Validate(c.doc, 0)
			if !errors.Is(err, c.want) {
				t.Fatalf("Validate = %v, want %v", err, c.want)
			}
			if !strings.Contains(err.Error(), c.message) {
				t.Fatalf("message %q does not say %q", err, c.message)
			}
			if apperr.KindOf(err) != apperr.Invalid {
				t.Fatalf("kind %v, want invalid", apperr.KindOf(err))
			}
		})
	}
}

func TestValidateSizeLimit(t *testing.T) {
	atLimit := bytes.Repeat([]byte("a"), DefaultMaxDocumentBytes)
	if err := Validate(atLimit, 0); err != nil {
		t.Fatalf("a document of exactly the default limit: %v", err)
	}
	err := Validate(append(atLimit, 'a'), 0)
	if !errors.Is(err, ErrDocumentTooLarge) || apperr.KindOf(err) != apperr.TooLarge {
		t.Fatalf("limit+1: %v, want ErrDocumentTooLarge", err)
	}
	if !strings.Contains(err.Error(), "1048577 bytes; the limit is 1048576") {
		t.Fatalf("message %q does not give the sizes", err)
	}
	if err := Validate([]byte("12345"), 5); err != nil {
		t.Fatalf("exactly a custom limit of 5: %v", err)
	}
	if err := Validate([]byte("123456"), 5); !errors.Is(err, ErrDocumentTooLarge) {
		t.Fatalf("custom limit+1: %v, want ErrDocumentTooLarge", err)
	}
	if err := Validate(atLimit, -1); err != nil {
		t.Fatalf("a negative limit means the default: %v", err)
	}
	// Size is checked before content, so a huge hostile body is refused
	// without being scanned.
	if err := Validate([]byte("\x00\x00"), 1); !errors.Is(err, ErrDocumentTooLarge) {
		t.Fatalf("oversized NUL document: %v, want ErrDocumentTooLarge", err)
	}
}

func TestValidateAcceptsAnyValidText(t *testing.T) {
	for _, doc := range []string{
		"a",
		" ",
		"\r\n",
		"\ufeff# BOM first",
		"emoji 🎉 and combining e\u0301",
		"\x01\x7f control characters other than NUL",
	} {
		if err := Validate([]byte(doc), 0); err != nil {
			t.Errorf("Validate(%q): %v", doc, err)
		}
	}
}

func TestPrepareKeepsTheExactBytes(t *testing.T) {
	for _, v := range loadHashVectors(t) {
		if v.Document == "" {
			if _, err := Prepare([]byte(v.Document), 0); !errors.Is(err, ErrEmptyDocument) {
				t.Errorf("Prepare(empty) = %v", err)
			}
			continue
		}
		doc, err := Prepare([]byte(v.Document), 0)
		if err != nil {
			t.Fatalf("Prepare(%q): %v", v.Document, err)
		}
		if string(doc.Content) != v.Document || doc.Sums.SHA1.Hex() != v.Hex {
			t.Errorf("Prepare(%q) changed the bytes or the hash: %q %s", v.Document, doc.Content, doc.Sums.SHA1)
		}
	}
	crlf := []byte("---\r\nname: X\r\n---\r\n\r\nBody  \r\n")
	doc, err := Prepare(crlf, 0)
	if err != nil || !bytes.Equal(doc.Content, crlf) {
		t.Fatalf("Prepare changed a CRLF document: %q, %v", doc.Content, err)
	}
	if doc.Metadata.Title != "X" {
		t.Fatalf("metadata of a CRLF document: %+v", doc.Metadata)
	}
	if _, err := Prepare([]byte("toolong"), 3); !errors.Is(err, ErrDocumentTooLarge) {
		t.Fatalf("Prepare ignores its limit: %v", err)
	}
}
