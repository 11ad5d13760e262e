package engine

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
		_, err := compileSchema(map[string]any{
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
	s, err := compileSchema(map[string]any{
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
	s, err := compileSchema(map[string]any{"type": "object", "properties": map[string]any{"mode": map[string]any{"enum": []any{}}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(map[string]any{"mode": "x"}); err == nil {
		t.Error("an empty enum accepted a value")
	}
}

// Schema errors say where the schema is wrong.
func TestInvalidSchemaSaysWhere(t *testing.T) {
	_, err := compileSchema(map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integr"}}})
	if err == nil || !strings.Contains(err.Error(), "/properties/n/type") {
		t.Fatalf("error %v does not name /properties/n/type", err)
	}
}
