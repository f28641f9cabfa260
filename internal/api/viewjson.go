package api

import (
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/protocol"
)

// writeProtocolView answers with one ProtocolView as writeJSON does,
// without encoding/json's reflection: a publish spent as long encoding its
// answer as reading the document's metadata. The bytes are writeJSON's
// (appendJSONString writes the control characters \b and \f, which no
// cleaned metadata holds, as \u0008 and \u000c: the same JSON).
func writeProtocolView(c echo.Context, status int, v *ProtocolView) error {
	_, offset := v.CreatedAt.Zone()
	if y := v.CreatedAt.Year(); y < 0 || y > 9999 || offset <= -24*3600 || offset >= 24*3600 {
		return writeJSON(c, status, v) // encoding/json's error for such a time
	}
	buf := appendProtocolView(make([]byte, 0, 1024), v)
	c.Response().Header().Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
	c.Response().WriteHeader(status)
	_, err := c.Response().Write(buf)
	return err
}

// appendProtocolView appends v as json.Encoder (SetEscapeHTML(false))
// encodes it, newline included; TestAppendProtocolView holds the two to
// each other for every field (a new field fails it until it is added here).
func appendProtocolView(buf []byte, v *ProtocolView) []byte {
	buf = append(buf, `{"hex":`...)
	buf = appendJSONString(buf, v.Hex)
	buf = append(buf, `,"base64":`...)
	buf = appendJSONString(buf, v.Base64)
	buf = append(buf, `,"title":`...)
	buf = appendJSONString(buf, v.Title)
	buf = append(buf, `,"description":`...)
	buf = appendJSONString(buf, v.Description)
	buf = append(buf, `,"tags":`...)
	buf = appendJSONStrings(buf, v.Tags)
	buf = append(buf, `,"multiround":`...)
	buf = strconv.AppendBool(buf, v.Multiround)
	if v.Version != "" {
		buf = append(buf, `,"version":`...)
		buf = appendJSONString(buf, v.Version)
	}
	if v.Supersedes != "" {
		buf = append(buf, `,"supersedes":`...)
		buf = appendJSONString(buf, v.Supersedes)
	}
	if len(v.Authors) > 0 {
		buf = append(buf, `,"authors":`...)
		buf = appendJSONStrings(buf, v.Authors)
	}
	if v.License != "" {
		buf = append(buf, `,"license":`...)
		buf = appendJSONString(buf, v.License)
	}
	buf = append(buf, `,"size":`...)
	buf = strconv.AppendInt(buf, int64(v.Size), 10)
	buf = append(buf, `,"createdAt":"`...)
	// time.Time's MarshalJSON is RFC 3339 with nanoseconds for years
	// 0-9999 and zones within a day (writeProtocolView leaves other times
	// to encoding/json).
	buf = v.CreatedAt.AppendFormat(buf, time.RFC3339Nano)
	buf = append(buf, `","origin":`...)
	buf = appendJSONString(buf, v.Origin)
	buf = append(buf, `,"publisher":`...)
	buf = appendJSONString(buf, v.Publisher)
	buf = append(buf, `,"lints":`...)
	buf = appendLints(buf, v.Lints)
	buf = append(buf, `,"sources":`...)
	buf = appendJSONStrings(buf, v.Sources)
	buf = append(buf, `,"htmlUrl":`...)
	buf = appendJSONString(buf, v.HTMLURL)
	buf = append(buf, `,"sdkCompatible":`...)
	buf = strconv.AppendBool(buf, v.SDKCompatible)
	if v.Content != nil {
		buf = append(buf, `,"content":`...)
		buf = appendJSONString(buf, *v.Content)
	}
	if v.Versions != nil {
		buf = append(buf, `,"versions":{"newer":`...)
		buf = appendVersionRefs(buf, v.Versions.Newer)
		buf = append(buf, `,"claims":`...)
		buf = appendVersionRefs(buf, v.Versions.Claims)
		buf = append(buf, `,"supersedesClaim":`...)
		buf = strconv.AppendBool(buf, v.Versions.SupersedesClaim)
		buf = append(buf, '}')
	}
	return append(buf, "}\n"...)
}

func appendVersionRefs(buf []byte, refs []VersionRef) []byte {
	if refs == nil {
		return append(buf, "null"...)
	}
	buf = append(buf, '[')
	for i, r := range refs {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, `{"hex":`...)
		buf = appendJSONString(buf, r.Hex)
		buf = append(buf, `,"title":`...)
		buf = appendJSONString(buf, r.Title)
		buf = append(buf, `,"publisher":`...)
		buf = appendJSONString(buf, r.Publisher)
		buf = append(buf, '}')
	}
	return append(buf, ']')
}

// appendJSONStrings appends a string slice (nil is null, as encoding/json
// writes it).
func appendJSONStrings(buf []byte, ss []string) []byte {
	if ss == nil {
		return append(buf, "null"...)
	}
	buf = append(buf, '[')
	for i, s := range ss {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendJSONString(buf, s)
	}
	return append(buf, ']')
}

func appendLints(buf []byte, lints []protocol.Lint) []byte {
	if lints == nil {
		return append(buf, "null"...)
	}
	buf = append(buf, '[')
	for i, l := range lints {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, `{"code":`...)
		buf = appendJSONString(buf, l.Code)
		buf = append(buf, `,"message":`...)
		buf = appendJSONString(buf, l.Message)
		buf = append(buf, '}')
	}
	return append(buf, ']')
}
