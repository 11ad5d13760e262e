package schema

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/luatool/luatool/internal/extdata"
	"github.com/luatool/luatool/internal/jsonvalue"
)

// TestFastPlanAgreesWithTheSuite runs the official JSON Schema Test Suite through the
// fast path: every suite schema that can be a fast property plan is checked against
// each instance, and an instance the plan accepts must be one the suite calls valid.
// (The plan may refuse valid instances: the general path then decides.)
func TestFastPlanAgreesWithTheSuite(t *testing.T) {
	suite := extdata.JSONSchemaSuite(t)
	for _, draft := range []string{"draft2020-12", "draft7"} {
		files, _ := filepath.Glob(filepath.Join(suite, "tests", draft, "*.json"))
		if len(files) == 0 {
			t.Fatalf("the JSON Schema Test Suite at %s has no tests for %s", suite, draft)
		}
		planned, accepted, wrong := 0, 0, 0
		for _, file := range files {
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var groups []struct {
				Description string
				Schema      json.RawMessage
				Tests       []struct {
					Description string
					Data        json.RawMessage
					Valid       bool
				}
			}
			if err := json.Unmarshal(raw, &groups); err != nil {
				t.Fatal(err)
			}
			for _, g := range groups {
				dec := json.NewDecoder(strings.NewReader(string(g.Schema)))
				dec.UseNumber()
				var schema any
				if dec.Decode(&schema) != nil {
					continue
				}
				if m, ok := schema.(map[string]any); ok {
					delete(m, "$schema") // the draft is the root's business
				}
				sp, ok := newScalarPlan("x", schema)
				if !ok {
					continue
				}
				for _, c := range g.Tests {
					v, err := jsonvalue.Decode(c.Data)
					if err != nil {
						continue
					}
					planned++
					if sp.accepts(v) {
						accepted++
						if !c.Valid {
							wrong++
							t.Errorf("%s %s / %s / %s: the fast path accepts %s, which is invalid", draft, filepath.Base(file), g.Description, c.Description, c.Data)
						}
					}
				}
			}
		}
		t.Log(extdata.Cases(planned, fmt.Sprintf("%s, those with a fast plan: %d accepted by it, %d of them wrongly", draft, accepted, wrong)))
		if planned < 100 {
			t.Errorf("%s: only %d suite cases reached the fast path; is the suite there?", draft, planned)
		}
	}
}

// TestFastPathAgreesWithTheGeneralPath prepares random inputs for flat schemas both
// ways: whenever the fast path accepts an input, the general path accepts it too and
// leaves the same values.
func TestFastPathAgreesWithTheGeneralPath(t *testing.T) {
	schemas := []string{
		`{"type":"object","properties":{"text":{"type":"string","minLength":1,"maxLength":5}},"required":["text"]}`,
		`{"type":"object","properties":{"n":{"type":"integer","minimum":0,"exclusiveMaximum":10},"x":{"type":"number","default":1.5}},"additionalProperties":false}`,
		`{"type":"object","properties":{"mode":{"type":"string","enum":["a","b"],"default":"a"},"flag":{"type":"boolean"},"opt":{"type":["string","null"]}}}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"k":{"type":["integer","boolean"],"maximum":3}},"required":["k"]}`,
	}
	values := []any{nil, true, false, 0.0, 1.0, 2.5, -1.0, 3.0, 9.0, 10.0, 12.0, "", "a", "b", "hello", "toolong", "1", "2.5", "true", "false", " 3 ",
		map[string]any{}, []any{}, "é☃"}
	keys := []string{"text", "n", "x", "mode", "flag", "opt", "k", "other"}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, src := range schemas {
		var doc map[string]any
		if err := json.Unmarshal([]byte(src), &doc); err != nil {
			t.Fatal(err)
		}
		s, err := CompileObject(doc)
		if err != nil {
			t.Fatal(err)
		}
		if s.fast == nil {
			t.Fatalf("%s has no fast plan", src)
		}
		fastOK := 0
		for range 3000 {
			input := map[string]any{}
			for range rng.IntN(4) {
				input[keys[rng.IntN(len(keys))]] = values[rng.IntN(len(values))]
			}
			viaFast := maps.Clone(input)
			if !s.fast.prepare(viaFast) {
				continue
			}
			fastOK++
			general := maps.Clone(input)
			coerce(s.compiled, general, 0)
			if err := s.Validate(general); err != nil {
				t.Fatalf("%s: the fast path accepts %v, the general path refuses it: %v", src, input, err)
			}
			if !reflect.DeepEqual(viaFast, general) {
				t.Fatalf("%s: %v prepared as %v by the fast path, %v by the general path", src, input, viaFast, general)
			}
		}
		if fastOK == 0 {
			t.Errorf("%s: the fast path accepted nothing", src)
		}
	}
}

func TestNoFastPlanForOtherSchemas(t *testing.T) {
	for _, src := range []string{
		`{"type":"object","properties":{"a":{"type":"object"}}}`,
		`{"type":"object","properties":{"a":{"type":"string","pattern":"x"}}}`,
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"type":"string"}}}`,
		`{"type":"object","properties":{"a":{"enum":[1,[2]]}}}`,
		`{"type":"object","properties":{"a":{"type":"string"}},"required":["b"]}`,
		`{"type":"object","additionalProperties":{"type":"string"}}`,
		`{"type":"object","allOf":[{"required":["a"]}]}`,
		`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"a":{"type":"number","minimum":1,"exclusiveMinimum":true}}}`,
	} {
		var doc map[string]any
		json.Unmarshal([]byte(src), &doc)
		s, err := CompileObject(doc)
		if err != nil {
			continue // draft-04 is refused by the compiler anyway
		}
		if s.fast != nil {
			t.Errorf("%s has a fast plan", src)
		}
	}
}

// Found in review: defaults and inexact numbers.
func TestFastPathRefusesWhatTheValidatorWould(t *testing.T) {
	for _, tc := range []struct {
		schema map[string]any
		input  map[string]any
	}{
		{map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer", "default": "abc"}}}, map[string]any{}},
		{map[string]any{"type": "object", "properties": map[string]any{"m": map[string]any{"enum": []any{"a", "b"}, "default": "c"}}}, map[string]any{}},
		{map[string]any{"type": "object", "properties": map[string]any{
			"a": map[string]any{"type": "integer", "default": "5"}, "b": map[string]any{"type": "string", "default": "x"}},
			"required": []any{"b"}}, map[string]any{}},
		{map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"type": "number", "maximum": json.Number("0.29999999999999999")}}}, map[string]any{"x": 0.3}},
		{map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"minimum": int64(9007199254740993)}}}, map[string]any{"x": float64(1 << 53)}},
	} {
		s, err := CompileObject(tc.schema)
		if err != nil {
			t.Fatal(err)
		}
		want := s.Validate(generalPrepared(s, maps.Clone(tc.input)))
		_, got := s.Prepare(maps.Clone(tc.input))
		if (want == nil) != (got == nil) {
			t.Errorf("%v with %v: Prepare error %v, general path %v", tc.schema, tc.input, got, want)
		}
	}
}

func generalPrepared(s *Schema, input map[string]any) map[string]any {
	coerce(s.compiled, input, 0)
	return input
}

func TestFastPathTakesClosedSchemasWithDefaults(t *testing.T) {
	s, err := CompileObject(map[string]any{"type": "object", "additionalProperties": false,
		"properties": map[string]any{"text": map[string]any{"type": "string"}, "n": map[string]any{"type": "integer", "default": 1.0}}})
	if err != nil {
		t.Fatal(err)
	}
	if !s.fast.prepare(map[string]any{"text": "x"}) {
		t.Error("a closed schema with an absent defaulted property left the fast path")
	}
}
