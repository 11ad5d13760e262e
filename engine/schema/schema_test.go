package schema

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A schema may not reach files or the network: a $ref to either is a compile error,
// and nothing is read (E25 of the sandbox catalogue).
func TestSchemaRefsStayInside(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret.json")
	if err := os.WriteFile(secret, []byte(`{"type": "string"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"file://" + secret, "http://127.0.0.1:1/schema.json", secret} {
		_, err := CompileObject(map[string]any{
			"type":       "object",
			"properties": map[string]any{"x": map[string]any{"$ref": ref}},
		})
		if err == nil {
			t.Errorf("$ref %s compiled; it must be refused", ref)
			continue
		}
		if !strings.Contains(err.Error(), "may refer only to itself") {
			t.Errorf("$ref %s: error %q does not say why", ref, err)
		}
	}
	// A reference inside the schema itself works.
	s, err := CompileObject(map[string]any{
		"type":       "object",
		"$defs":      map[string]any{"name": map[string]any{"type": "string"}},
		"properties": map[string]any{"x": map[string]any{"$ref": "#/$defs/name"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(map[string]any{"x": 1.0}); err == nil {
		t.Error("a local $ref was not followed")
	}
}

// An empty enum allows nothing (jsonschema/v5 allowed everything).
func TestEmptyEnumAllowsNothing(t *testing.T) {
	s, err := CompileObject(map[string]any{"type": "object", "properties": map[string]any{"mode": map[string]any{"enum": []any{}}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(map[string]any{"mode": "x"}); err == nil {
		t.Error("an empty enum accepted a value")
	}
}

// Schema errors say where the schema is wrong.
func TestInvalidSchemaSaysWhere(t *testing.T) {
	_, err := CompileObject(map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integr"}}})
	if err == nil || !strings.Contains(err.Error(), "/properties/n/type") {
		t.Fatalf("error %v does not name /properties/n/type", err)
	}
}

// Failed constraints are worded as the original's validator words them (as its
// recordings show for enums: `Invalid option: expected one of "pending"|...`), and
// the problems come in its order: missing, unexpected, wrong type, the rest.
func TestConstraintWording(t *testing.T) {
	s, err := CompileObject(map[string]any{
		"type": "object", "required": []any{"id"}, "additionalProperties": false,
		"properties": map[string]any{
			"id":    map[string]any{"type": "string"},
			"mode":  map[string]any{"enum": []any{"replace", "insert"}},
			"only":  map[string]any{"enum": []any{"deleted"}},
			"kind":  map[string]any{"const": 3},
			"n":     map[string]any{"type": "integer", "minimum": 0, "maximum": 9007199254740991},
			"limit": map[string]any{"type": "integer", "exclusiveMinimum": 0},
			"ratio": map[string]any{"type": "number", "exclusiveMaximum": 2.5},
			"name":  map[string]any{"type": "string", "minLength": 1, "maxLength": 3},
			"tags":  map[string]any{"type": "array", "minItems": 1},
			"many":  map[string]any{"type": "array", "maxItems": 1},
			"pick":  map[string]any{"anyOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}}},
			"flag":  map[string]any{"type": "boolean"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Validate(map[string]any{"mode": "append", "only": "x", "kind": 4.0, "n": -1.0, "limit": 0.0, "ratio": 2.5,
		"name": "", "tags": []any{}, "many": []any{1.0, 2.0}, "pick": true, "flag": "yes", "bogus": 1.0})
	ve, ok := err.(*ValidationError)
	if !ok {
		t.Fatalf("error %v is not a *ValidationError", err)
	}
	want := []string{
		"The required parameter `id` is missing",
		"An unexpected parameter `bogus` was provided",
		"The parameter `flag` type is expected as `boolean` but provided as `string`",
		"The parameter `kind` is invalid: Invalid input: expected 3",
		"The parameter `limit` is invalid: Too small: expected number to be >0",
		"The parameter `many` is invalid: Too big: expected array to have <=1 items",
		"The parameter `mode` is invalid: Invalid option: expected one of \"replace\"|\"insert\"",
		"The parameter `n` is invalid: Too small: expected number to be >=0",
		"The parameter `name` is invalid: Too small: expected string to have >=1 characters",
		"The parameter `only` is invalid: Invalid input: expected \"deleted\"",
		"The parameter `pick` is invalid: Invalid input",
		"The parameter `ratio` is invalid: Too big: expected number to be <2.5",
		"The parameter `tags` is invalid: Too small: expected array to have >=1 items",
	}
	if strings.Join(ve.Problems, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems\n%s\nwant\n%s", strings.Join(ve.Problems, "\n"), strings.Join(want, "\n"))
	}
	if err := s.Validate(map[string]any{"id": "x", "n": 9007199254740992.0}); err == nil ||
		!strings.Contains(err.Error(), "Too big: expected number to be <=9007199254740991") {
		t.Errorf("maximum: %v", err)
	}
}

// An object schema with propertyNames is what the original's validator holds as a
// record, and a value of another type there is "expected as `record`", in an array
// too; a plain object stays "object".
func TestRecordTypeWording(t *testing.T) {
	record := map[string]any{"type": "object", "propertyNames": map[string]any{"type": "string"}, "additionalProperties": map[string]any{}}
	s, err := CompileObject(map[string]any{
		"type": "object",
		"properties": map[string]any{
			"metadata": record,
			"plain":    map[string]any{"type": "object"},
			"list":     map[string]any{"type": "array", "items": record},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Validate(map[string]any{"metadata": []any{}, "plain": "x", "list": []any{nil}})
	want := []string{
		"The parameter `list[0]` type is expected as `record` but provided as `null`",
		"The parameter `metadata` type is expected as `record` but provided as `array`",
		"The parameter `plain` type is expected as `object` but provided as `string`",
	}
	if ve, ok := err.(*ValidationError); !ok || strings.Join(ve.Problems, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems\n%v\nwant\n%s", err, strings.Join(want, "\n"))
	}
}

// A required enum that is missing is, for the original's validator, a value outside
// the enum: it is worded so, after the parameters that are missing.
func TestMissingEnumWording(t *testing.T) {
	s, err := CompileObject(map[string]any{
		"type": "object", "required": []any{"content", "status", "activeForm"},
		"properties": map[string]any{
			"content":    map[string]any{"type": "string"},
			"status":     map[string]any{"type": "string", "enum": []any{"pending", "completed"}},
			"activeForm": map[string]any{"type": "string"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"The required parameter `content` is missing",
		"The required parameter `activeForm` is missing",
		"The parameter `status` is invalid: Invalid option: expected one of \"pending\"|\"completed\"",
	}
	if ve, ok := s.Validate(map[string]any{}).(*ValidationError); !ok || strings.Join(ve.Problems, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems\n%v\nwant\n%s", ve, strings.Join(want, "\n"))
	}
}

// TestEnumOfAnotherType: the original's validator checks an enum by value alone, so
// a value of another type, null included, is an option outside the list.
func TestEnumOfAnotherType(t *testing.T) {
	s, err := CompileObject(map[string]any{
		"type": "object",
		"properties": map[string]any{
			"mode": map[string]any{"type": "string", "enum": []any{"a", "b"}},
			"name": map[string]any{"type": "string"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"The parameter `name` type is expected as `string` but provided as `null`",
		"The parameter `mode` is invalid: Invalid option: expected one of \"a\"|\"b\"",
	}
	for _, mode := range []any{nil, 1.0, true} {
		ve, ok := s.Validate(map[string]any{"mode": mode, "name": nil}).(*ValidationError)
		if !ok || strings.Join(ve.Problems, "\n") != strings.Join(want, "\n") {
			t.Errorf("mode %v: problems\n%v\nwant\n%s", mode, ve, strings.Join(want, "\n"))
		}
	}
}
