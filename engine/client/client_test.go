package client

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// decode reads the JSON object of a test, as a client's or a tool's value.
func decode(t *testing.T, s string) (m map[string]any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestCheckSchemaTakesMCPShapes(t *testing.T) {
	s, err := CheckSchema(decode(t, `{"type":"object","required":{},"properties":{
		"name":{"type":"string","default":"John Doe","minLength":1},
		"age":{"type":"integer","default":30},
		"status":{"type":"string","enum":["a","b"],"enumNames":["A","B"],"default":"a"},
		"titled":{"type":"string","oneOf":[{"const":"v1","title":"One"}]},
		"multi":{"type":"array","minItems":1,"items":{"type":"string","enum":["x","y"]},"default":["x"]},
		"titledMulti":{"type":"array","items":{"anyOf":[{"const":"v1","title":"One"}]}},
		"ok":{"type":"boolean","default":true}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s["required"]; ok {
		t.Errorf("an empty required (Lua's {}) is sent: %v", s["required"])
	}
	out, _ := json.Marshal(s)
	for _, want := range []string{`"default":30`, `"enumNames":["A","B"]`, `"anyOf":[{"const":"v1","title":"One"}]`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("schema %s lacks %s", out, want)
		}
	}
}

func TestCheckSchemaNamesWhatMCPRefuses(t *testing.T) {
	for schema, want := range map[string]string{
		`{"properties":{"address":{"type":"object","properties":{}}}}`:              `property "address": type object is not allowed`,
		`{"properties":{"s":{"type":"string","enum":["a"],"enumNames":["A","B"]}}}`: `enumNames has 2 names for 1 values`,
		`{"properties":{"s":{"type":"string","pattern":"x"}}}`:                      `"pattern" is not allowed`,
		`{"properties":{"n":{"type":"integer","default":1.5}}}`:                     `default: an integer is expected`,
		`{"properties":{"s":{"type":"string"}},"required":["t"]}`:                   `required names t`,
	} {
		_, err := CheckSchema(decode(t, schema))
		if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckSchema(%s) = %v, want %q", schema, err, want)
		}
	}
}

func TestCheckResultFailsClosed(t *testing.T) {
	r := &ElicitRequest{Message: "who?", RequestedSchema: decode(t, `{"properties":{
		"name":{"type":"string"},"age":{"type":"integer","default":30},"email":{"type":"string","format":"email"}},
		"required":["name"]}`)}
	if err := r.Check(); err != nil {
		t.Fatal(err)
	}
	ok := &ElicitResult{Action: "accept", Content: map[string]any{"name": "Ann"}}
	if err := CheckResult(r, ok); err != nil || ok.Content["age"] != float64(30) {
		t.Fatalf("CheckResult = %v, content %v (the default not filled)", err, ok.Content)
	}
	for _, bad := range []*ElicitResult{
		{Action: "yes"},
		{Action: "accept", Content: map[string]any{}},
		{Action: "accept", Content: map[string]any{"name": 1.0}},
		{Action: "accept", Content: map[string]any{"name": "a", "age": 1.5}},
		{Action: "accept", Content: map[string]any{"name": "a", "email": "nope"}},
		{Action: "accept", Content: map[string]any{"name": "a", "extra": true}},
	} {
		if err := CheckResult(r, bad); !errors.Is(err, ErrMalformed) {
			t.Errorf("CheckResult(%+v) = %v, want malformed", bad, err)
		}
	}
}

func TestSamplingRequestIsChecked(t *testing.T) {
	r, err := DecodeSamplingRequest(map[string]any{"messages": []any{map[string]any{"role": "user",
		"content": map[string]any{"type": "text", "text": "hi"}}}, "maxTokens": 100.0, "stopSequences": map[string]any{}})
	if err != nil || r.MaxTokens != 100 {
		t.Fatalf("DecodeSamplingRequest = %+v, %v", r, err)
	}
	for _, bad := range []map[string]any{
		{"messages": []any{}, "maxTokens": 1.0},
		{"messages": []any{map[string]any{"role": "system", "content": map[string]any{"type": "text", "text": "x"}}}, "maxTokens": 1.0},
		{"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "x"}}}, "maxTokens": 1.0, "temprature": 1.0},
	} {
		if _, err := DecodeSamplingRequest(bad); !errors.Is(err, ErrMalformed) {
			t.Errorf("DecodeSamplingRequest(%v) = %v, want malformed", bad, err)
		}
	}
	if err := (&SamplingResult{Role: "assistant", Content: Content{Type: "text", Text: "x"}}).Check(); !errors.Is(err, ErrMalformed) {
		t.Errorf("a result without its model: %v", err)
	}
}

func TestLevels(t *testing.T) {
	if !Warning.AtLeast(Info) || Debug.AtLeast(Info) || !Info.AtLeast(Info) {
		t.Error("level order wrong")
	}
	if _, ok := ParseLevel("warn"); ok {
		t.Error("warn is not an MCP level")
	}
}
