package engine

import (
	"context"
	"errors"
	"fmt"
)

// A Definition is what a model or a client is told about a tool: the material of
// the tool definitions of the model APIs (engine/apischema) and of MCP's tools/list.
type Definition struct {
	// Name is the tool's name; Title its userFacingName.
	Name, Title string
	// Description is the tool's prompt, as the model reads it.
	Description string
	// InputSchema and OutputSchema (nil when not declared) are JSON Schemas.
	InputSchema, OutputSchema map[string]any
	// Hints are what the tool declares about every call.
	Hints Hints
	// SearchHint is the tool's 3-10 word capability phrase, if any.
	SearchHint string
	// Deferred tools are announced by name only until discovered; Announced is false
	// for those not discovered yet. AlwaysLoad tools are never deferred.
	Deferred, Announced, AlwaysLoad bool
	// MaxResultSizeChars is the tool's persistence threshold (Tool.MaxResultSizeChars):
	// the largest text result the engine hands on inline, +Inf for never persisted.
	MaxResultSizeChars float64
}

// Definitions returns the definitions of the tools in the current snapshot, in
// name order. A tool whose prompt fails is left out, and the error names it; the
// others are returned all the same.
//
// They are the tools the principal of ctx sees (its profile may hide some), and a
// deferred tool is announced once discovered in its session.
func (e *Engine) Definitions(ctx context.Context) ([]Definition, error) {
	reg := e.registryFor(ctx)
	discovered := e.sessionFor(ctx).discovered(ctx)
	defs := make([]Definition, 0, len(reg.Tools()))
	var errs []error
	for _, t := range reg.Tools() {
		prompt, err := t.Prompt(ctx, PromptOptions{Tools: reg.Names()})
		if err != nil {
			errs = append(errs, fmt.Errorf("%s (%s): prompt: %w", t.Name(), t.Source(), err))
			continue
		}
		defs = append(defs, Definition{
			Name:         t.Name(),
			Title:        t.UserFacingName(ctx, nil),
			Description:  prompt,
			InputSchema:  t.InputSchema(),
			OutputSchema: t.OutputSchema(),
			Hints:        t.Hints(),
			SearchHint:   t.SearchHint(),
			Deferred:     t.Deferred(),
			Announced:    announced(t, discovered),
			AlwaysLoad:   t.def.AlwaysLoad,

			MaxResultSizeChars: t.MaxResultSizeChars(),
		})
	}
	return defs, errors.Join(errs...)
}
