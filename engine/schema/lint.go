package schema

import (
	"fmt"
	"maps"
	"slices"

	"github.com/luatool/luatool/internal/spell"
)

// schemaKeywords are the keywords of JSON Schema drafts 7 to 2020-12, the
// vocabulary a schema's misspelled keyword is compared with.
var schemaKeywords = []string{
	"$schema", "$id", "$ref", "$defs", "$anchor", "$dynamicRef", "$dynamicAnchor", "$comment", "$vocabulary",
	"definitions", "type", "enum", "const", "title", "description", "default", "examples", "deprecated",
	"readOnly", "writeOnly", "properties", "patternProperties", "additionalProperties", "required",
	"propertyNames", "minProperties", "maxProperties", "dependentRequired", "dependentSchemas", "dependencies",
	"unevaluatedProperties", "items", "prefixItems", "additionalItems", "unevaluatedItems", "contains",
	"minContains", "maxContains", "minItems", "maxItems", "uniqueItems", "minLength", "maxLength", "pattern",
	"format", "contentEncoding", "contentMediaType", "contentSchema", "minimum", "maximum",
	"exclusiveMinimum", "exclusiveMaximum", "multipleOf", "allOf", "anyOf", "oneOf", "not", "if", "then", "else",
}

var knownKeywords = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range schemaKeywords {
		m[k] = true
	}
	return m
}()

// Lint finds what compiles but is likely a mistake: a key that is a
// misspelled keyword (JSON Schema ignores unknown keys, so "requried" silently
// requires nothing), and a required property that properties does not declare.
// Each problem is one line naming where, with a hint.
func Lint(schema map[string]any, where string) []string {
	var out []string
	var walk func(s any, path string)
	walkMap := func(m any, path string) {
		if mm, ok := m.(map[string]any); ok {
			for _, k := range slices.Sorted(maps.Keys(mm)) {
				walk(mm[k], path+"."+k)
			}
		}
	}
	walk = func(v any, path string) {
		s, ok := v.(map[string]any)
		if !ok {
			return
		}
		for _, k := range slices.Sorted(maps.Keys(s)) {
			if knownKeywords[k] {
				continue
			}
			if hint := spell.Suggest(k, schemaKeywords); hint != "" {
				out = append(out, fmt.Sprintf("%s: unknown keyword %q is ignored (did you mean %s?)", path, k, hint))
			}
		}
		if props, ok := s["properties"].(map[string]any); ok {
			names := slices.Sorted(maps.Keys(props))
			if req, ok := s["required"].([]any); ok {
				for _, r := range req {
					name, _ := r.(string)
					if _, declared := props[name]; declared {
						continue
					}
					msg := fmt.Sprintf("%s.required names %q, which properties does not declare", path, name)
					if hint := spell.Suggest(name, names); hint != "" {
						msg += fmt.Sprintf(" (did you mean %s?)", hint)
					}
					out = append(out, msg)
				}
			}
			walkMap(props, path+".properties")
		}
		for _, k := range []string{"$defs", "definitions", "patternProperties", "dependentSchemas"} {
			walkMap(s[k], path+"."+k)
		}
		for _, k := range []string{"items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedProperties", "unevaluatedItems", "additionalItems"} {
			walk(s[k], path+"."+k)
		}
		for _, k := range []string{"allOf", "anyOf", "oneOf", "prefixItems"} {
			if list, ok := s[k].([]any); ok {
				for i, sub := range list {
					walk(sub, fmt.Sprintf("%s.%s[%d]", path, k, i))
				}
			}
		}
	}
	walk(schema, where)
	return out
}
