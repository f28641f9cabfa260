package agora

import (
	"bytes"
	"encoding/json"
)

// TaskSchema describes what a sender wants done, as the SDK's TaskSchema
// does: a description and JSON Schemas of the input and the output (raw
// JSON; nil is null).
type TaskSchema struct {
	Description  string
	InputSchema  json.RawMessage
	OutputSchema json.RawMessage
}

// String is the schema as the SDK prints it into its prompts
// (json.dumps(indent=2) of description, input_schema, output_schema), the
// schemas' own key order kept.
func (t TaskSchema) String() string {
	desc, _ := json.Marshal(t.Description)
	var b bytes.Buffer
	b.WriteString("{\n  \"description\": ")
	b.Write(desc)
	b.WriteString(",\n  \"input_schema\": ")
	writeIndented(&b, t.InputSchema)
	b.WriteString(",\n  \"output_schema\": ")
	writeIndented(&b, t.OutputSchema)
	b.WriteString("\n}")
	return b.String()
}

func writeIndented(b *bytes.Buffer, v json.RawMessage) {
	if len(bytes.TrimSpace(v)) == 0 || json.Indent(b, v, "  ", "  ") != nil {
		b.WriteString("null")
	}
}
