package feature

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/internal/spell"
)

// MaxCompletions is the most values a completion offers at once: MCP's limit for
// completion/complete.
const MaxCompletions = 100

// A Completion says how to complete the value of a prompt's argument or of a resource
// template's variable, for MCP's completion/complete (a client offers the values as
// a person types): from Values, a fixed list, or by Func. Exactly one is set.
type Completion struct {
	// Values are the values on offer, in order: a completion offers those that start
	// with what was typed, without regard to case. An empty, non-nil list offers
	// nothing.
	Values []string
	// Func returns the values on offer, in order, for value, what was typed so far;
	// args are the other arguments (or variables) the client has filled in (MCP's
	// context.arguments), and cc is as for PromptDef.Get. Its values are offered as
	// they are: it filters them itself.
	Func func(ctx context.Context, value string, args map[string]string, cc *engine.CallContext) ([]string, error)
}

// check says what is wrong with the completion, if anything.
func (c *Completion) check() error {
	switch {
	case c.Func == nil && c.Values == nil:
		return errors.New("a completion needs a list of values or a function")
	case c.Func != nil && c.Values != nil:
		return errors.New("a completion has a list of values or a function, not both")
	}
	return nil
}

// Completions are what a completion offers: at most MaxCompletions Values, how many
// there are in all (Total), and whether some were left out (HasMore).
type Completions struct {
	Values  []string
	Total   int
	HasMore bool
}

// ErrUnknownArgument is the error CompletePrompt and CompleteResource wrap for an
// argument the prompt does not take, or a variable the template does not have.
var ErrUnknownArgument = errors.New("no such argument")

// CompletePrompt completes the value of argument of the prompt name in e's current
// snapshot: value is what was typed so far, args the other arguments given (nil for
// none). An unknown prompt is an error wrapping ErrUnknownPrompt, an argument the
// prompt does not take one wrapping ErrUnknownArgument, each with the closest name.
// An argument that declares no completion offers nothing. A completion function runs
// as a prompt's get does (see GetPrompt); its failure, or a value that is not a list
// of strings, is an error naming the prompt and argument, which ends that request
// only.
func CompletePrompt(ctx context.Context, e *engine.Engine, name, argument, value string, args map[string]string) (*Completions, error) {
	reg := e.Registry()
	p, err := lookupPrompt(reg, name)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(p.def.Arguments, func(a PromptArgument) bool { return a.Name == argument })
	if i < 0 {
		names := make([]string, len(p.def.Arguments))
		for j, a := range p.def.Arguments {
			names[j] = a.Name
		}
		return nil, unknownArgument(fmt.Sprintf("prompt %s takes no argument %q", name, argument), argument, names)
	}
	c, err := p.def.Arguments[i].Complete.complete(ctx, e, reg, kindPrompt, name, value, args)
	if err != nil {
		return nil, fmt.Errorf("prompt %s: argument %s: %w", name, argument, err)
	}
	return c, nil
}

// CompleteResource completes the value of variable of the resource template
// uriTemplate ("notes://{topic}") in e's current snapshot, as CompletePrompt does for a
// prompt's argument: an unknown template is an error wrapping ErrUnknownResource, a
// variable the template does not have (or a resource of one URI, which has none) one
// wrapping ErrUnknownArgument.
func CompleteResource(ctx context.Context, e *engine.Engine, uriTemplate, variable, value string, args map[string]string) (*Completions, error) {
	reg := e.Registry()
	resources := Resources(reg)
	i := slices.IndexFunc(resources, func(r *Resource) bool { return r.URI() == uriTemplate })
	if i < 0 {
		return nil, unknownResource(uriTemplate, resources)
	}
	r := resources[i]
	if !r.IsTemplate() {
		return nil, fmt.Errorf("%w: resource %s is not a template: it has no variable to complete", ErrUnknownArgument, uriTemplate)
	}
	vars := r.tmpl.Varnames()
	if !slices.Contains(vars, variable) {
		return nil, unknownArgument(fmt.Sprintf("resource template %s has no variable %q", uriTemplate, variable), variable, vars)
	}
	c, err := r.def.Complete[variable].complete(ctx, e, reg, kindResource, uriTemplate, value, args)
	if err != nil {
		return nil, fmt.Errorf("resource %s: variable %s: %w", uriTemplate, variable, err)
	}
	return c, nil
}

// complete offers c's values for value; a nil c offers none.
func (c *Completion) complete(ctx context.Context, e *engine.Engine, reg *engine.Registry, kind, key, value string, args map[string]string) (*Completions, error) {
	var values []string
	switch {
	case c == nil:
	case c.Func != nil:
		ctx, cancel := context.WithTimeout(ctx, e.Options().Timeout)
		defer cancel()
		if args == nil {
			args = map[string]string{}
		}
		var err error
		if values, err = c.Func(ctx, value, args, e.FeatureContext(reg, kind, key)); err != nil {
			return nil, err
		}
	default:
		typed := strings.ToLower(value)
		for _, v := range c.Values {
			if strings.HasPrefix(strings.ToLower(v), typed) {
				values = append(values, v)
			}
		}
	}
	out := &Completions{Values: values, Total: len(values), HasMore: len(values) > MaxCompletions}
	if out.HasMore {
		out.Values = values[:MaxCompletions:MaxCompletions]
	}
	if out.Values == nil {
		out.Values = []string{}
	}
	return out, nil
}

// unknownArgument is the error of a name that is not among names: msg, with the
// closest of names.
func unknownArgument(msg, name string, names []string) error {
	if s := spell.Suggest(name, names); s != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", s)
	}
	return fmt.Errorf("%w: %s", ErrUnknownArgument, msg)
}
