package apischema

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/luatool/luatool/engine"
)

// decode reads a JSON schema written in a test.
func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestOpenAIStrictClosesObjects(t *testing.T) {
	schema := decode(t, `{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"type": "object",
		"properties": {
			"todos": {"type": "array", "items": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}},
			"mode": {"anyOf": [{"type": "string", "enum": ["a", "b"]}, {"type": "object", "properties": {}, "required": []}]},
			"when": {"type": ["string", "null"]}
		},
		"required": ["todos", "mode", "when"],
		"$defs": {"point": {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]}}
	}`)
	got, err := openAIStrict(schema)
	if err != nil {
		t.Fatalf("a schema within strict mode was refused: %v", err)
	}
	enc, _ := json.Marshal(got)
	want := `{"$defs":{"point":{"additionalProperties":false,"properties":{"x":{"type":"number"}},"required":["x"],"type":"object"}},` +
		`"additionalProperties":false,"properties":{"mode":{"anyOf":[{"enum":["a","b"],"type":"string"},{"additionalProperties":false,"properties":{},"required":[],"type":"object"}]},` +
		`"todos":{"items":{"additionalProperties":false,"properties":{"text":{"type":"string"}},"required":["text"],"type":"object"},"type":"array"},` +
		`"when":{"type":["string","null"]}},"required":["todos","mode","when"],"type":"object"}`
	if string(enc) != want {
		t.Errorf("strict schema\n got %s\nwant %s", enc, want)
	}
	if _, ok := schema["additionalProperties"]; ok {
		t.Error("openAIStrict changed the schema it was given")
	}
}

func TestOpenAIStrictRefusals(t *testing.T) {
	for _, tc := range []struct{ schema, why string }{
		{`{"type":"object","properties":{"a":{"type":"string"}}}`, "optional properties a (strict mode requires every property)"},
		{`{"type":"object","properties":{"a":{"type":"string","minLength":1}},"required":["a"]}`, "a: unsupported keyword minLength"},
		{`{"type":"object","additionalProperties":true}`, "additionalProperties is not false"},
		{`{"type":"object","additionalProperties":{"type":"string"}}`, "additionalProperties is not false"},
		{`{"type":"object","properties":{"l":{"type":"array"}},"required":["l"]}`, "l: an array without items"},
		{`{"type":"object","properties":{"l":{"type":["array","null"]}},"required":["l"]}`, "l: an array without items"},
		{`{"type":"object","anyOf":[{"type":"object"}]}`, "the root is an anyOf"},
		{`{"type":"object","properties":{"a":{"type":"string","default":"x"}},"required":["a"]}`, "a: unsupported keyword default"},
		{`{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"object","properties":{"c":{"type":"object","properties":{"d":{"type":"object","properties":{"e":{"type":"object","properties":{"f":{"type":"object"}},"required":["f"]}},"required":["e"]}},"required":["d"]}},"required":["c"]}},"required":["b"]}},"required":["a"]}`,
			"objects nested more than 5 deep"},
		{`{"type":"object","properties":{"a":{"allOf":[{"type":"string"}]}},"required":["a"]}`, "a: unsupported keyword allOf"},
	} {
		_, err := openAIStrict(decode(t, tc.schema))
		if err == nil || !strings.Contains(err.Error(), tc.why) {
			t.Errorf("%s: error %v, want one containing %q", tc.schema, err, tc.why)
		}
	}
}

func TestExportNames(t *testing.T) {
	def := func(name string) engine.Definition {
		return engine.Definition{Name: name, Description: "d", Announced: true, InputSchema: map[string]any{"type": "object"}}
	}
	out, notes, err := Export(Anthropic, []engine.Definition{def("Read"), def("git.status")})
	if err != nil {
		t.Fatal(err)
	}
	if out[0].(map[string]any)["name"] != "Read" || out[1].(map[string]any)["name"] != "git_status" {
		t.Errorf("names: %v", out)
	}
	if len(notes) != 1 || notes[0].String() != "git.status: sent as git_status (the API does not accept dots in tool names)" {
		t.Errorf("notes: %v", notes)
	}
	_, _, err = Export(OpenAI, []engine.Definition{def("a.b"), def("a_b"), def(strings.Repeat("x", 65))})
	if err == nil || !strings.Contains(err.Error(), `"a.b" would be sent as "a_b"`) || !strings.Contains(err.Error(), "has 65 characters") {
		t.Errorf("want both name problems, got %v", err)
	}
	if _, _, err := Export(MCP, []engine.Definition{def("a.b"), def("a_b")}); err != nil {
		t.Errorf("MCP takes dotted names: %v", err)
	}
}

func TestExportDeferred(t *testing.T) {
	schema := map[string]any{"type": "object"}
	defs := []engine.Definition{
		{Name: "Hidden", Deferred: true, InputSchema: schema},
		{Name: "Found", Deferred: true, Announced: true, InputSchema: schema},
		{Name: "Plain", Announced: true, InputSchema: schema},
	}
	// Anthropic: every tool, the deferred ones marked for the API's tool search,
	// each with a note.
	out, notes, err := Export(Anthropic, defs)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 3 || out[0].(map[string]any)["defer_loading"] != true || out[1].(map[string]any)["defer_loading"] != true ||
		out[2].(map[string]any)["defer_loading"] != nil {
		t.Errorf("anthropic: %v", out)
	}
	if len(notes) != 2 || notes[0].Tool != "Hidden" || !strings.Contains(notes[0].Message, "defer_loading: true") || notes[1].Tool != "Found" {
		t.Errorf("anthropic notes: %v", notes)
	}
	// OpenAI has no deferred loading: the undiscovered tool is left out, and the
	// note says so.
	openai, notes, _ := Export(OpenAI, defs)
	if len(openai) != 2 || !slices.ContainsFunc(notes, func(n Note) bool { return n.Tool == "Hidden" && strings.Contains(n.Message, "left out") }) {
		t.Errorf("openai: %v, notes %v", openai, notes)
	}
	if out, _, _ := Export(MCP, defs); len(out) != 3 {
		t.Errorf("MCP lists every tool, got %d", len(out))
	}
	if props := out[2].(map[string]any)["input_schema"].(map[string]any)["properties"]; props == nil {
		t.Error("an object schema without properties is sent without them")
	}
}

func TestMCPToolHints(t *testing.T) {
	yes, no := true, false
	tool := MCPTool(engine.Definition{Name: "T", InputSchema: map[string]any{"type": "object"},
		Hints: engine.Hints{ReadOnly: &no, Destructive: &yes, OpenWorld: &no, Idempotent: &yes}})
	a := tool.Annotations
	if a.ReadOnlyHint || a.DestructiveHint == nil || !*a.DestructiveHint || a.OpenWorldHint == nil || *a.OpenWorldHint || !a.IdempotentHint {
		t.Errorf("declared hints: %+v", a)
	}
	// Undeclared hints are left out, so that clients assume the unsafe answer.
	tool = MCPTool(engine.Definition{Name: "T", InputSchema: map[string]any{"type": "object"}})
	if a := tool.Annotations; a.ReadOnlyHint || a.DestructiveHint != nil || a.OpenWorldHint != nil || a.IdempotentHint {
		t.Errorf("undeclared hints: %+v", a)
	}
}

func TestParseFormat(t *testing.T) {
	for _, f := range Formats {
		if got, err := ParseFormat(string(f)); got != f || err != nil {
			t.Errorf("ParseFormat(%q) = %q, %v", f, got, err)
		}
	}
	if _, err := ParseFormat("bard"); err == nil || !strings.Contains(err.Error(), "supported: anthropic, openai, mcp, gemini, gemini-openapi") {
		t.Errorf("ParseFormat(bard): %v", err)
	}
}
