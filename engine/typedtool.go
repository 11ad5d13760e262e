package engine

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/luatool/luatool/internal/jsonvalue"
)

// A TypedTool is a Go-native tool written as a function of a Go input type to a Go
// output type, in the manner of the MCP SDK's AddTool: Def derives the input schema
// from In (with github.com/google/jsonschema-go: fields by their json names, required
// unless omitempty, descriptions from `jsonschema:"..."` tags, no other properties),
// and the output schema from Out when Out is a struct. A call's validated input is
// decoded into an In, and the Out returned is the result's data.
//
// The members that are the same for every input are values here, not functions.
// Set any other member on the ToolDef Def returns.
type TypedTool[In, Out any] struct {
	// Name and Prompt are the tool's name and the description the model reads.
	Name, Prompt string
	// ReadOnly and ConcurrencySafe hold for every input; false, the zero value, is
	// the safe answer of each. They are also the tool's hints for MCP clients.
	ReadOnly, ConcurrencySafe bool
	// Call runs the tool.
	Call func(ctx context.Context, in In, cc *CallContext) (Out, error)
}

// Def returns the tool's ToolDef, ready for Options.Tools. It fails when In is not a
// type a JSON Schema of an object can describe (a struct or a map), or when Call is
// missing.
func (t TypedTool[In, Out]) Def() (ToolDef, error) {
	if t.Call == nil {
		return ToolDef{}, fmt.Errorf("tool %s: Call is required", t.Name)
	}
	in, err := schemaOf[In]()
	if err != nil {
		return ToolDef{}, fmt.Errorf("tool %s: input type: %w", t.Name, err)
	}
	if in["type"] != "object" {
		return ToolDef{}, fmt.Errorf("tool %s: the input type must be a struct or a map, whose schema is an object, not %v", t.Name, in["type"])
	}
	var out map[string]any
	if s, err := schemaOf[Out](); err == nil && s["type"] == "object" {
		out = s
	}
	readOnly, concurrencySafe := t.ReadOnly, t.ConcurrencySafe
	prompt := t.Prompt
	return ToolDef{
		Name:         t.Name,
		InputSchema:  in,
		OutputSchema: out,
		Hints:        Hints{ReadOnly: &readOnly, ConcurrencySafe: &concurrencySafe},
		Prompt:       func(context.Context, PromptOptions) (string, error) { return prompt, nil },
		Call: func(ctx context.Context, input map[string]any, cc *CallContext) (*ToolResult, error) {
			var v In
			if err := convert(input, &v); err != nil {
				return nil, fmt.Errorf("decoding the input: %w", err)
			}
			res, err := t.Call(ctx, v, cc)
			if err != nil {
				return nil, err
			}
			var data any
			if err := convert(res, &data); err != nil {
				return nil, fmt.Errorf("encoding the result: %w", err)
			}
			return &ToolResult{Data: data}, nil
		},
	}, nil
}

// schemaOf returns the JSON Schema of T as a JSON value.
func schemaOf[T any]() (map[string]any, error) {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	v, err := jsonvalue.Decode(raw)
	if err != nil {
		return nil, err
	}
	m, _ := v.(map[string]any)
	return m, nil
}

// convert turns from into to through JSON, to being a pointer: an input's JSON
// values into a Go type, a Go result into JSON values (numbers as the engine's
// decoder makes them).
func convert(from, to any) error {
	raw, err := json.Marshal(from)
	if err != nil {
		return err
	}
	if p, ok := to.(*any); ok {
		v, err := jsonvalue.Decode(raw)
		*p = v
		return err
	}
	return json.Unmarshal(raw, to)
}
