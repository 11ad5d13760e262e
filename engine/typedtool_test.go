package engine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

type weatherIn struct {
	City  string `json:"city" jsonschema:"the city to look up"`
	Units string `json:"units,omitempty" jsonschema:"metric or imperial"`
}

type weatherOut struct {
	City    string  `json:"city"`
	Celsius float64 `json:"celsius"`
}

// TestTypedTool: the schemas come from the types, the input is decoded into In after
// validation, the Out is the data (and matches the derived output schema), and the
// constant answers need no function.
func TestTypedTool(t *testing.T) {
	def, err := TypedTool[weatherIn, weatherOut]{
		Name: "Weather", Prompt: "Tells the weather.", ReadOnly: true, ConcurrencySafe: true,
		Call: func(_ context.Context, in weatherIn, _ *CallContext) (weatherOut, error) {
			return weatherOut{City: strings.ToUpper(in.City), Celsius: 21.5}, nil
		},
	}.Def()
	if err != nil {
		t.Fatal(err)
	}
	schema, _ := json.Marshal(def.InputSchema)
	for _, want := range []string{`"city":{"description":"the city to look up","type":"string"}`, `"required":["city"]`, `"additionalProperties":false`} {
		if !strings.Contains(string(schema), want) {
			t.Errorf("input schema %s lacks %s", schema, want)
		}
	}
	if def.OutputSchema == nil || def.IsReadOnly != nil || def.IsConcurrencySafe != nil {
		t.Errorf("output schema %v; flags must be values (hints), not functions", def.OutputSchema)
	}
	e, err := New(Options{Cwd: t.TempDir(), Tools: []ToolDef{def}})
	if err != nil {
		t.Fatal(err)
	}
	tool, _ := e.Registry().Lookup("Weather")
	if !tool.IsReadOnly(context.Background(), nil) || !tool.IsConcurrencySafe(context.Background(), nil) {
		t.Error("the constant answers are not the tool's")
	}
	r := e.Call(context.Background(), ToolUse{ID: "1", Name: "Weather", Input: []byte(`{"city": "oslo"}`)})
	if r.Block.IsError || r.Block.Content.String() != `{"celsius":21.5,"city":"OSLO"}` {
		t.Errorf("result %q (stage %s)", r.Block.Content.String(), r.Stage)
	}
	r = e.Call(context.Background(), ToolUse{ID: "2", Name: "Weather", Input: []byte(`{"town": "oslo"}`)})
	if r.Stage != StageInput || !strings.Contains(r.Block.Content.String(), "The required parameter `city` is missing") {
		t.Errorf("input the schema refuses: %q", r.Block.Content.String())
	}
	if _, err := (TypedTool[string, string]{Name: "S", Call: func(context.Context, string, *CallContext) (string, error) { return "", nil }}).Def(); err == nil {
		t.Error("a string input type was accepted")
	}
}
