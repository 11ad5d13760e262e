package apischema

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// OpenAI's strict mode accepts a subset of JSON Schema, and two snapshots of its
// documentation disagree on how large: these are the keywords both accept.
var strictKeywords = map[string]bool{
	"type": true, "properties": true, "required": true, "additionalProperties": true,
	"items": true, "enum": true, "const": true, "anyOf": true, "description": true,
	"title": true, "$ref": true, "$defs": true, "definitions": true,
}

// The limits of strict mode, again the stricter of the two snapshots.
const (
	strictMaxDepth      = 5
	strictMaxProperties = 100
	strictMaxEnum       = 500
)

// openAIStrict returns the schema as OpenAI strict mode needs it, or why it cannot
// be: every object closed with additionalProperties: false (added where absent,
// which only narrows what the model may send), every property required, only
// keywords of the subset, arrays with items, within the limits. Optional properties
// are not rewritten as required-and-nullable, as OpenAI suggests: the model would
// then send null where the tool's own validation refuses it.
func openAIStrict(schema map[string]any) (map[string]any, error) {
	w := &strictWalk{}
	root := make(map[string]any, len(schema))
	for k, v := range schema {
		if k != "$schema" { // metadata; strict mode does not know it
			root[k] = v
		}
	}
	if _, ok := root["anyOf"]; ok {
		w.fail("", "the root is an anyOf")
	}
	out := w.schema(root, "", 0)
	if w.properties > strictMaxProperties {
		w.fail("", fmt.Sprintf("%d properties in all; at most %d", w.properties, strictMaxProperties))
	}
	if len(w.problems) > 0 {
		return nil, errors.New(strings.Join(w.problems, "; "))
	}
	return out.(map[string]any), nil
}

type strictWalk struct {
	problems   []string
	properties int
}

func (w *strictWalk) fail(path, msg string) {
	if path != "" {
		msg = path + ": " + msg
	}
	w.problems = append(w.problems, msg)
}

// schema returns a copy of the subschema s at path, closed, recording problems.
func (w *strictWalk) schema(s any, path string, depth int) any {
	m, ok := s.(map[string]any)
	if !ok {
		w.fail(path, "a schema that is not an object")
		return s
	}
	out := make(map[string]any, len(m)+1)
	var unsupported []string
	for k, v := range m {
		if !strictKeywords[k] {
			unsupported = append(unsupported, k)
		}
		out[k] = v
	}
	if len(unsupported) > 0 {
		sort.Strings(unsupported)
		w.fail(path, "unsupported keyword "+strings.Join(unsupported, ", "))
	}
	if e, ok := m["enum"].([]any); ok && len(e) > strictMaxEnum {
		w.fail(path, fmt.Sprintf("enum of %d values; at most %d", len(e), strictMaxEnum))
	}
	types := typeNames(m["type"])
	if types["object"] || m["properties"] != nil {
		w.object(m, out, path, depth)
	}
	if types["array"] {
		if items, ok := m["items"]; ok {
			out["items"] = w.schema(items, path+"[]", depth+1)
		} else {
			w.fail(path, "an array without items")
		}
	}
	for _, key := range []string{"$defs", "definitions"} {
		if defs, ok := m[key].(map[string]any); ok {
			closed := make(map[string]any, len(defs))
			for name, d := range defs {
				closed[name] = w.schema(d, "#/"+key+"/"+name, 0)
			}
			out[key] = closed
		}
	}
	if branches, ok := m["anyOf"].([]any); ok {
		closed := make([]any, len(branches))
		for i, b := range branches {
			closed[i] = w.schema(b, fmt.Sprintf("%sanyOf[%d]", prefix(path), i), depth)
		}
		out["anyOf"] = closed
	}
	return out
}

// object checks and closes an object schema m, writing into out.
func (w *strictWalk) object(m, out map[string]any, path string, depth int) {
	if depth >= strictMaxDepth {
		w.fail(path, fmt.Sprintf("objects nested more than %d deep", strictMaxDepth))
	}
	switch ap := m["additionalProperties"]; ap {
	case nil:
		out["additionalProperties"] = false
	case false:
	default:
		w.fail(path, "additionalProperties is not false")
	}
	props, _ := m["properties"].(map[string]any)
	w.properties += len(props)
	required := map[string]bool{}
	switch list := m["required"].(type) {
	case []any:
		for _, r := range list {
			if s, ok := r.(string); ok {
				required[s] = true
			}
		}
	case []string:
		for _, s := range list {
			required[s] = true
		}
	}
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	sort.Strings(names)
	var optional []string
	closed := make(map[string]any, len(props))
	for _, name := range names {
		if !required[name] {
			optional = append(optional, name)
		}
		closed[name] = w.schema(props[name], prefix(path)+name, depth+1)
	}
	out["properties"] = closed
	if len(optional) > 0 {
		w.fail(path, "optional properties "+strings.Join(optional, ", ")+" (strict mode requires every property)")
	}
}

// typeNames returns the names a type keyword allows.
func typeNames(t any) map[string]bool {
	names := map[string]bool{}
	switch t := t.(type) {
	case string:
		names[t] = true
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok {
				names[s] = true
			}
		}
	}
	return names
}

func prefix(path string) string {
	if path == "" {
		return ""
	}
	return path + "."
}
