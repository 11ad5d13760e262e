package apischema

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The Gemini API takes a function's parameters in one of two fields: parametersJsonSchema,
// a JSON Schema as is, or parameters, its Schema object, a subset of OpenAPI 3.0's.
// The Gemini format uses the first; GeminiOpenAPI rewrites the schema into the
// second, for hosts and SDKs that know only it.

// geminiKept are the keywords of Gemini's Schema object that mean what they mean in
// JSON Schema and are kept as they are (type, enum, format, properties, items and
// anyOf are rewritten).
var geminiKept = map[string]bool{
	"description": true, "title": true, "nullable": true, "default": true, "example": true,
	"required": true, "minItems": true, "maxItems": true, "minLength": true, "maxLength": true,
	"minProperties": true, "maxProperties": true, "pattern": true, "minimum": true, "maximum": true,
	"propertyOrdering": true,
}

// geminiFormats are the formats Gemini's Schema takes for each type: the Gemini
// Developer API fails a request with any other string format.
var geminiFormats = map[string][]string{
	"STRING":  {"enum", "date-time"},
	"NUMBER":  {"float", "double"},
	"INTEGER": {"int32", "int64"},
}

// geminiFunction returns the FunctionDeclaration of a tool for format f, under
// its API name api.
func geminiFunction(f Format, tool, api, description string, schema map[string]any) (map[string]any, []Note, error) {
	fn := map[string]any{"name": api, "description": description}
	if f == Gemini {
		fn["parametersJsonSchema"] = schema
		return fn, nil, nil
	}
	params, changes, err := geminiParameters(schema)
	if err != nil {
		return nil, nil, fmt.Errorf("tool %q: %w", tool, err)
	}
	if props, _ := params["properties"].(map[string]any); len(props) > 0 {
		fn["parameters"] = params // a function without parameters leaves them unset
	}
	var notes []Note
	if len(changes) > 0 {
		notes = append(notes, Note{tool, "parameters: " + changes})
	}
	return fn, notes, nil
}

// geminiName checks a name (in its API form) against the Gemini API's rule: a
// letter or an underscore first. The other rules (at most 64 characters of
// letters, digits, underscores and dashes) are those of APIName.
func geminiName(tool, api string) error {
	if c := api[0]; c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
		return nil
	}
	return fmt.Errorf("tool name %q does not start with a letter or an underscore, as the Gemini API requires", tool)
}

// geminiParameters rewrites a JSON Schema as Gemini's Schema object: $ref resolved
// inline from $defs or definitions, type names in Gemini's (upper case), a null
// among the types as nullable, const as a one-value enum, oneOf as anyOf, and the
// keywords Gemini does not know dropped. It returns what it changed, by kind and
// path, for the note. A schema that cannot be written so (a recursive $ref, an
// allOf of more than one schema) is an error naming the place, with the way out.
func geminiParameters(schema map[string]any) (map[string]any, string, error) {
	w := &geminiWalk{changes: map[string][]string{}, defs: map[string]any{}}
	for _, key := range []string{"$defs", "definitions"} {
		if defs, ok := schema[key].(map[string]any); ok {
			for name, d := range defs {
				w.defs["#/"+key+"/"+name] = d
			}
		}
	}
	out := w.schema(schema, "", false)
	if len(w.problems) > 0 {
		return nil, "", errors.New(strings.Join(w.problems, "; ") + " (--format gemini sends the schema as it is, in parametersJsonSchema)")
	}
	kinds := slices.Sorted(maps.Keys(w.changes))
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = k + " at " + strings.Join(slices.Compact(w.changes[k]), ", ")
	}
	return out, strings.Join(parts, "; "), nil
}

type geminiWalk struct {
	defs     map[string]any
	changes  map[string][]string // kind of change -> paths
	problems []string
	// resolving are the $refs being inlined, outermost first: one met again is a
	// recursion.
	resolving []string
}

func (w *geminiWalk) changed(kind, path string) {
	if path == "" {
		path = "the root"
	}
	w.changes[kind] = append(w.changes[kind], path)
}

func (w *geminiWalk) fail(path, msg string) {
	if path != "" {
		msg = path + ": " + msg
	}
	w.problems = append(w.problems, msg)
}

// schema rewrites the subschema s at path; nested is false for the root.
func (w *geminiWalk) schema(s any, path string, nested bool) map[string]any {
	m, ok := s.(map[string]any)
	if !ok {
		if s == true {
			return map[string]any{} // any value
		}
		w.fail(path, "a schema that is not an object")
		return nil
	}
	if ref, ok := m["$ref"].(string); ok {
		target := w.inline(ref, m, path)
		if target == nil {
			return nil
		}
		defer func() { w.resolving = w.resolving[:len(w.resolving)-1] }()
		return w.schema(target, path, nested) // the target may be a $ref too
	}
	if all, ok := m["allOf"].([]any); ok {
		if len(all) != 1 {
			w.fail(path, "allOf of several schemas, which Gemini's Schema cannot express")
			return nil
		}
		merged, ok := all[0].(map[string]any)
		if !ok {
			w.fail(path, "allOf of a schema that is not an object")
			return nil
		}
		m = mergeSchemas(m, merged)
		delete(m, "allOf")
		w.changed("allOf of one schema merged", path)
		return w.schema(m, path, nested)
	}

	out := map[string]any{}
	var dropped []string
	for k, v := range m {
		switch {
		case geminiKept[k]:
			out[k] = v
		case k == "type", k == "enum", k == "const", k == "format", k == "properties", k == "items", k == "anyOf", k == "oneOf":
			// below
		case k == "$schema", k == "$id", k == "$comment", k == "$defs", k == "definitions", k == "$ref":
			// metadata, or resolved inline
		default:
			dropped = append(dropped, k)
		}
	}
	for _, k := range dropped {
		w.changed(k+" dropped", path)
	}
	w.types(m, out, path)
	w.enum(m, out, path)
	w.format(m, out, path)
	if props, ok := m["properties"].(map[string]any); ok {
		if len(props) == 0 && nested {
			w.changed("empty properties dropped", path)
		} else {
			rewritten := make(map[string]any, len(props))
			for _, name := range slices.Sorted(maps.Keys(props)) {
				rewritten[name] = w.schema(props[name], prefix(path)+name, true)
			}
			out["properties"] = rewritten
		}
	}
	switch items := m["items"].(type) {
	case nil:
	case []any:
		w.changed("items of a tuple dropped", path)
	default:
		out["items"] = w.schema(items, path+"[]", true)
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		branches, ok := m[key].([]any)
		if !ok {
			continue
		}
		if key == "oneOf" {
			w.changed("oneOf sent as anyOf", path)
		}
		rewritten := make([]any, 0, len(branches))
		if prev, ok := out["anyOf"].([]any); ok {
			rewritten = prev
		}
		for i, b := range branches {
			rewritten = append(rewritten, w.schema(b, fmt.Sprintf("%s%s[%d]", prefix(path), key, i), true))
		}
		out["anyOf"] = rewritten
	}
	return out
}

// inline returns the schema a $ref names, with the keywords beside the $ref over
// it, and pushes the ref on the resolving stack (the caller pops it). Nil, with the
// problem recorded, for a ref that cannot be inlined.
func (w *geminiWalk) inline(ref string, m map[string]any, path string) map[string]any {
	if slices.Contains(w.resolving, ref) {
		w.fail(path, fmt.Sprintf("$ref %s is recursive (through %s) and cannot be inlined", ref, strings.Join(append(w.resolving, ref), " -> ")))
		return nil
	}
	target, ok := w.defs[ref].(map[string]any)
	if !ok {
		w.fail(path, fmt.Sprintf("$ref %s names no schema of $defs or definitions", ref))
		return nil
	}
	w.resolving = append(w.resolving, ref)
	w.changed("$ref "+ref+" inlined", path)
	siblings := maps.Clone(m)
	delete(siblings, "$ref")
	return mergeSchemas(target, siblings)
}

// mergeSchemas returns base with the keywords of over added, over's winning.
func mergeSchemas(base, over map[string]any) map[string]any {
	out := maps.Clone(base)
	maps.Copy(out, over)
	return out
}

// types writes Gemini's type: upper case, a null among the types as nullable, and
// several types as an anyOf of each.
func (w *geminiWalk) types(m, out map[string]any, path string) {
	var names []string
	switch t := m["type"].(type) {
	case nil:
		return
	case string:
		names = []string{t}
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok {
				names = append(names, s)
			}
		}
	}
	var kept []string
	for _, n := range names {
		if n == "null" && len(names) > 1 {
			out["nullable"] = true
			w.changed("null type as nullable", path)
			continue
		}
		kept = append(kept, strings.ToUpper(n))
	}
	switch len(kept) {
	case 0:
	case 1:
		out["type"] = kept[0]
	default:
		branches := make([]any, len(kept))
		for i, t := range kept {
			branches[i] = map[string]any{"type": t}
		}
		out["anyOf"] = branches
		w.changed("several types as anyOf", path)
	}
}

// enum writes Gemini's enum, which holds strings only: const as a one-value enum,
// null as nullable; an enum or const of other values is dropped.
func (w *geminiWalk) enum(m, out map[string]any, path string) {
	var values []any
	if c, ok := m["const"]; ok {
		values = []any{c}
		if _, isString := c.(string); isString {
			w.changed("const as enum", path)
		}
	} else if e, ok := m["enum"].([]any); ok {
		values = e
	} else {
		return
	}
	strs := make([]any, 0, len(values))
	for _, v := range values {
		switch v := v.(type) {
		case string:
			strs = append(strs, v)
		case nil:
			out["nullable"] = true
			w.changed("null in enum as nullable", path)
		default:
			w.changed("enum of values other than strings dropped", path)
			return
		}
	}
	out["enum"] = strs
}

// format keeps a format Gemini takes for the schema's type and drops any other.
func (w *geminiWalk) format(m, out map[string]any, path string) {
	f, ok := m["format"].(string)
	if !ok {
		return
	}
	t, _ := out["type"].(string)
	if slices.Contains(geminiFormats[t], f) {
		out["format"] = f
		return
	}
	w.changed("format "+f+" dropped", path)
}
