package html

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/api/openapi"
)

// The API reference is rendered here from the embedded OpenAPI document,
// so it is served by the registry itself (no third-party script or CDN)
// and cannot drift from what /api/v1/openapi.json says.

type apiPage struct {
	base
	Version string
	Groups  []apiGroup
}

type apiGroup struct {
	Name, Description string
	Operations        []apiOperation
}

type apiOperation struct {
	ID, Method, Path, Summary, Description string
	Public                                 bool
	Parameters                             []apiParameter
	Body                                   string // content types of the request body
	Responses                              []apiResponse
}

type apiParameter struct {
	Name, In, Description string
	Required              bool
}

type apiResponse struct{ Status, Description string }

// openapiDoc is the part of the OpenAPI document the page shows.
type openapiDoc struct {
	Info struct {
		Version string `json:"version"`
	} `json:"info"`
	Tags []struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	} `json:"tags"`
	Paths      map[string]map[string]json.RawMessage `json:"paths"`
	Components struct {
		Parameters map[string]openapiParameter `json:"parameters"`
		Responses  map[string]struct {
			Description string `json:"description"`
		} `json:"responses"`
	} `json:"components"`
}

type openapiParameter struct {
	Ref         string `json:"$ref"`
	Name        string `json:"name"`
	In          string `json:"in"`
	Description string `json:"description"`
	Required    bool   `json:"required"`
}

type openapiOperation struct {
	OperationID string             `json:"operationId"`
	Summary     string             `json:"summary"`
	Description string             `json:"description"`
	Tags        []string           `json:"tags"`
	Security    []map[string]any   `json:"security"`
	Parameters  []openapiParameter `json:"parameters"`
	RequestBody *struct {
		Content map[string]any `json:"content"`
	} `json:"requestBody"`
	Responses map[string]struct {
		Ref         string `json:"$ref"`
		Description string `json:"description"`
	} `json:"responses"`
}

var apiMethodOrder = []string{"get", "head", "post", "put", "patch", "delete"}

// buildAPIPage reads the embedded document once at start-up.
func buildAPIPage() (apiPage, error) {
	var d openapiDoc
	if err := json.Unmarshal(openapi.Document, &d); err != nil {
		return apiPage{}, fmt.Errorf("html: the OpenAPI document: %w", err)
	}
	page := apiPage{base: base{Title: "API reference", Nav: "api"}, Version: d.Info.Version}
	byTag := map[string][]apiOperation{}
	for _, path := range slices.Sorted(maps.Keys(d.Paths)) {
		for _, method := range apiMethodOrder {
			raw, ok := d.Paths[path][method]
			if !ok {
				continue
			}
			var op openapiOperation
			if err := json.Unmarshal(raw, &op); err != nil {
				return apiPage{}, fmt.Errorf("html: the OpenAPI operation %s %s: %w", method, path, err)
			}
			v := apiOperation{ID: op.OperationID, Method: strings.ToUpper(method), Path: path,
				Summary: op.Summary, Description: op.Description, Public: len(op.Security) == 0}
			for _, p := range op.Parameters {
				if p.Ref != "" {
					p = d.Components.Parameters[strings.TrimPrefix(p.Ref, "#/components/parameters/")]
				}
				v.Parameters = append(v.Parameters, apiParameter{Name: p.Name, In: p.In, Description: p.Description, Required: p.Required})
			}
			if op.RequestBody != nil {
				v.Body = strings.Join(slices.Sorted(maps.Keys(op.RequestBody.Content)), ", ")
			}
			for status, r := range op.Responses {
				desc := r.Description
				if r.Ref != "" {
					desc = d.Components.Responses[strings.TrimPrefix(r.Ref, "#/components/responses/")].Description
				}
				v.Responses = append(v.Responses, apiResponse{Status: status, Description: desc})
			}
			slices.SortFunc(v.Responses, func(a, b apiResponse) int { return strings.Compare(a.Status, b.Status) })
			tag := "other"
			if len(op.Tags) > 0 {
				tag = op.Tags[0]
			}
			byTag[tag] = append(byTag[tag], v)
		}
	}
	// The document's tag order, then any tag it does not describe.
	for _, t := range d.Tags {
		page.Groups = append(page.Groups, apiGroup{Name: t.Name, Description: t.Description, Operations: byTag[t.Name]})
		delete(byTag, t.Name)
	}
	for _, tag := range slices.Sorted(maps.Keys(byTag)) {
		page.Groups = append(page.Groups, apiGroup{Name: tag, Operations: byTag[tag]})
	}
	return page, nil
}

// apiReference answers GET /api: the API reference for people.
func (p *Pages) apiReference(c echo.Context) error {
	return p.render(c, http.StatusOK, "apiref", p.api)
}
