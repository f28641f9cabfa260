// Package openapi holds the OpenAPI 3.1 description of the registry's JSON
// API and raw endpoints, served at GET /api/v1/openapi.json. The test in
// this package runs the real server and fails when the document and the
// router disagree on paths, methods or status codes.
package openapi

import _ "embed"

// Document is the OpenAPI 3.1 document (JSON).
//
//go:embed openapi.json
var Document []byte
