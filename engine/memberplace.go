package engine

import (
	"context"
	"fmt"
	"reflect"
)

// A place is where a member goes in a ToolDef: a field, or a hint. It is built by
// field, hintField, inputFunc, plainFunc or promptFunc from a function that finds the
// field in a ToolDef, so that the Go compiler checks each row of the member table
// against the ToolDef.
type place struct {
	// holds names the Go type the place takes, for Member.Define's error.
	holds string
	// set stores v, reporting false when v is not of the type the place takes.
	set func(d *ToolDef, v any) bool
	// given reports whether d gives the member here.
	given func(d *ToolDef) bool
	// declared, for a hint, is what the tool declares for every input: no when it
	// declares nothing.
	declared func(d *ToolDef) bool
	// ask calls the function held here with what luatool check has (see
	// checkQuestion) and returns its error; nil for a function check does not call.
	ask func(ctx context.Context, d *ToolDef, q checkQuestion) error
}

// A checkQuestion is what CheckMembers asks members with: an empty input, after the
// schema, and the names of the snapshot's tools for a prompt.
type checkQuestion struct {
	input map[string]any
	tools []string
}

// gives reports whether d gives the member at p; false for no place.
func (p *place) gives(d *ToolDef) bool { return p != nil && p.given(d) }

// field is the place of a ToolDef field that takes a value of its own type.
func field[F any](at func(*ToolDef) *F) *place {
	return &place{
		holds: fmt.Sprintf("%T", *new(F)),
		set: func(d *ToolDef, v any) bool {
			f, ok := v.(F)
			if ok {
				*at(d) = f
			}
			return ok
		},
		given: func(d *ToolDef) bool { return !reflect.ValueOf(at(d)).Elem().IsZero() },
	}
}

// hintField is the place of a Hints field, which takes a bool.
func hintField(at func(*Hints) **bool) *place {
	return &place{
		holds: "bool",
		set: func(d *ToolDef, v any) bool {
			b, ok := v.(bool)
			if ok {
				*at(&d.Hints) = &b
			}
			return ok
		},
		given:    func(d *ToolDef) bool { return *at(&d.Hints) != nil },
		declared: func(d *ToolDef) bool { return hint(*at(&d.Hints)) },
	}
}

// inputFunc is the place of a function of the input, which check asks with the
// empty input.
func inputFunc[T any](at func(*ToolDef) *func(context.Context, map[string]any) (T, error)) *place {
	p := field(at)
	p.ask = func(ctx context.Context, d *ToolDef, q checkQuestion) error {
		_, err := (*at(d))(ctx, q.input)
		return err
	}
	return p
}

// plainFunc is the place of a function of nothing, which check asks.
func plainFunc[T any](at func(*ToolDef) *func(context.Context) (T, error)) *place {
	p := field(at)
	p.ask = func(ctx context.Context, d *ToolDef, _ checkQuestion) error {
		_, err := (*at(d))(ctx)
		return err
	}
	return p
}

// promptFunc is the place of the prompt, which check asks with the snapshot's tools.
func promptFunc(at func(*ToolDef) *func(context.Context, PromptOptions) (string, error)) *place {
	p := field(at)
	p.ask = func(ctx context.Context, d *ToolDef, q checkQuestion) error {
		_, err := (*at(d))(ctx, PromptOptions{Tools: q.tools})
		return err
	}
	return p
}
