package apischema

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/luatool/luatool/engine"
)

func TestGeminiParameters(t *testing.T) {
	schema := decode(t, `{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"type": "object",
		"additionalProperties": false,
		"properties": {
			"at": {"$ref": "#/$defs/point", "description": "where"},
			"mode": {"const": "fast"},
			"when": {"type": ["string", "null"], "format": "date-time"},
			"url": {"type": "string", "format": "uri", "minLength": 1},
			"n": {"type": "integer", "exclusiveMinimum": 0, "maximum": 9},
			"pick": {"oneOf": [{"type": "string", "enum": ["a", "b"]}, {"type": "number", "enum": [1, 2]}]},
			"opts": {"type": "object", "properties": {}},
			"tags": {"type": "array", "items": {"$ref": "#/definitions/tag"}, "uniqueItems": true}
		},
		"required": ["at"],
		"$defs": {"point": {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"], "additionalProperties": false}},
		"definitions": {"tag": {"$ref": "#/$defs/name"}},
		"$defs_unused": {}
	}`)
	schema["$defs"].(map[string]any)["name"] = map[string]any{"type": "string"}
	delete(schema, "$defs_unused")
	got, changes, err := geminiParameters(schema)
	if err != nil {
		t.Fatal(err)
	}
	enc, _ := json.Marshal(got)
	want := `{"properties":{"at":{"description":"where","properties":{"x":{"type":"NUMBER"}},"required":["x"],"type":"OBJECT"},` +
		`"mode":{"enum":["fast"]},"n":{"maximum":9,"type":"INTEGER"},"opts":{"type":"OBJECT"},` +
		`"pick":{"anyOf":[{"enum":["a","b"],"type":"STRING"},{"type":"NUMBER"}]},` +
		`"tags":{"items":{"type":"STRING"},"type":"ARRAY"},"url":{"minLength":1,"type":"STRING"},` +
		`"when":{"format":"date-time","nullable":true,"type":"STRING"}},"required":["at"],"type":"OBJECT"}`
	if string(enc) != want {
		t.Errorf("parameters\n got %s\nwant %s", enc, want)
	}
	wantChanges := "$ref #/$defs/name inlined at tags[]; $ref #/$defs/point inlined at at; $ref #/definitions/tag inlined at tags[]; " +
		"additionalProperties dropped at the root, at; const as enum at mode; empty properties dropped at opts; " +
		"enum of values other than strings dropped at pick.oneOf[1]; exclusiveMinimum dropped at n; format uri dropped at url; " +
		"null type as nullable at when; oneOf sent as anyOf at pick; uniqueItems dropped at tags"
	if changes != wantChanges {
		t.Errorf("changes\n got %s\nwant %s", changes, wantChanges)
	}
	if _, ok := schema["properties"].(map[string]any)["at"].(map[string]any)["$ref"]; !ok {
		t.Error("geminiParameters changed the schema it was given")
	}
}

func TestGeminiParametersRefusals(t *testing.T) {
	for _, tc := range []struct{ schema, why string }{
		{`{"type":"object","properties":{"root":{"$ref":"#/$defs/node"}},"$defs":{"node":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/node"}}}}}}`,
			"root.kids[]: $ref #/$defs/node is recursive (through #/$defs/node -> #/$defs/node) and cannot be inlined"},
		{`{"type":"object","properties":{"a":{"$ref":"#/$defs/missing"}}}`, "a: $ref #/$defs/missing names no schema of $defs or definitions"},
		{`{"type":"object","properties":{"a":{"allOf":[{"type":"string"},{"minLength":1}]}}}`, "a: allOf of several schemas, which Gemini's Schema cannot express"},
	} {
		_, _, err := geminiParameters(decode(t, tc.schema))
		if err == nil || !strings.Contains(err.Error(), tc.why) || !strings.Contains(err.Error(), "--format gemini sends the schema as it is") {
			t.Errorf("%s: error %v, want one containing %q", tc.schema, err, tc.why)
		}
	}
}

func TestExportGemini(t *testing.T) {
	schema := map[string]any{"type": "object", "properties": map[string]any{"p": map[string]any{"type": "string", "format": "uri"}}, "additionalProperties": false}
	defs := []engine.Definition{
		{Name: "git.status", Description: "d", Announced: true, InputSchema: schema},
		{Name: "Empty", Description: "e", Announced: true, InputSchema: map[string]any{"type": "object"}},
		{Name: "Later", Deferred: true, InputSchema: schema},
	}
	out, notes, err := Export(Gemini, defs)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 {
		t.Fatalf("gemini: %d declarations, want the 2 announced", len(out))
	}
	first := out[0].(map[string]any)
	if first["name"] != "git_status" || first["parametersJsonSchema"].(map[string]any)["additionalProperties"] != false {
		t.Errorf("gemini: the schema is not sent as it is: %v", first)
	}
	if len(notes) != 2 || !strings.Contains(notes[0].Message, "sent as git_status") || notes[1].Tool != "Later" {
		t.Errorf("gemini notes: %v", notes)
	}
	out, notes, err = Export(GeminiOpenAPI, defs)
	if err != nil {
		t.Fatal(err)
	}
	if p := out[0].(map[string]any)["parameters"].(map[string]any); p["type"] != "OBJECT" || p["additionalProperties"] != nil {
		t.Errorf("gemini-openapi parameters: %v", p)
	}
	if _, ok := out[1].(map[string]any)["parameters"]; ok {
		t.Errorf("a function without parameters is sent some: %v", out[1])
	}
	if len(notes) != 3 || notes[1].String() != "git.status: parameters: additionalProperties dropped at the root; format uri dropped at p" {
		t.Errorf("gemini-openapi notes: %v", notes)
	}
	_, _, err = Export(Gemini, []engine.Definition{{Name: "9lives", Announced: true, InputSchema: schema}})
	if err == nil || !strings.Contains(err.Error(), `tool name "9lives" does not start with a letter or an underscore`) {
		t.Errorf("a name starting with a digit: %v", err)
	}
}

func TestExportAnthropicRootCombinators(t *testing.T) {
	defs := []engine.Definition{
		{Name: "Either", Announced: true, InputSchema: decode(t, `{"type":"object","anyOf":[{"required":["a"]},{"required":["b"]}]}`)},
		{Name: "Both", Announced: true, InputSchema: decode(t, `{"type":"object","oneOf":[{}],"allOf":[{}]}`)},
		{Name: "Fine", Announced: true, InputSchema: decode(t, `{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"number"}]}}}`)},
	}
	_, _, err := Export(Anthropic, defs)
	if err == nil {
		t.Fatal("a root anyOf was exported for the Messages API")
	}
	for _, want := range []string{`tool "Either": input_schema has anyOf at its root, which the Anthropic Messages API refuses`,
		`tool "Both": input_schema has oneOf and allOf at its root`, "check the combinations in validateInput"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "Fine") {
		t.Errorf("an anyOf inside a property was reported: %v", err)
	}
	if _, _, err := Export(Anthropic, defs[2:]); err != nil {
		t.Errorf("an anyOf inside a property: %v", err)
	}
}

func TestMCPToolMaxResultSizeChars(t *testing.T) {
	for limit, want := range map[float64]any{1234.5: 1235, engine.DefaultMaxResultSizeChars: 50000, math.Inf(1): MaxClientResultChars, 0: nil} {
		tool := MCPTool(engine.Definition{Name: "T", InputSchema: map[string]any{"type": "object"}, MaxResultSizeChars: limit})
		if got := tool.Meta["anthropic/maxResultSizeChars"]; got != want {
			t.Errorf("limit %v: anthropic/maxResultSizeChars = %v, want %v", limit, got, want)
		}
	}
}
