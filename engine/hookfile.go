package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/hooks"
)

// The engine's side of the hook protocol (package hooks): hook files as hooks, and
// the hooks of a call: which run, and the texts they add to its result.

// fileHook is the Hook of a hook file's Tool.
type fileHook struct{ t *Tool }

func (h fileHook) Event() hooks.Event     { return h.t.def.Hook.Event }
func (h fileHook) Matcher() string        { return h.t.def.Hook.Matcher }
func (h fileHook) Name() string           { return h.t.def.Source }
func (h fileHook) Timeout() time.Duration { return h.t.def.Hook.Timeout }
func (h fileHook) Run(ctx context.Context, in *hooks.Input) (hooks.Decision, error) {
	return h.t.def.Hook.Run(ctx, in)
}

// buildHook checks the definition of a hook file.
func buildHook(def ToolDef) (*Tool, error) {
	var errs []error
	problem := func(member string, err error) { errs = append(errs, &diag.MemberError{Member: member, Err: err}) }
	h := def.Hook
	if !slices.Contains(hooks.Events, h.Event) {
		problem("event", fmt.Errorf("event %q is not one luatool runs hooks for (%s)", h.Event, hookEventList()))
	}
	if _, err := hooks.CompileMatcher(h.Matcher); err != nil {
		problem("matcher", err)
	}
	if h.Timeout < 0 {
		problem("timeout", errors.New("timeout must be positive (0 means the default)"))
	}
	if h.Run == nil {
		problem("run", errors.New("required member run is missing: function(input, ctx) returning the decision"))
	}
	return &Tool{def: def, bound: defaultMemberTimeout}, errors.Join(errs...)
}

// hookEventList names the events luatool runs.
func hookEventList() string {
	names := make([]string, len(hooks.Events))
	for i, e := range hooks.Events {
		names[i] = string(e)
	}
	return strings.Join(names, ", ")
}

// hooksFor returns the hooks of an event that match tool, in order (the hooks of
// pol, then the hook files of reg), each Name once.
func (e *Engine) hooksFor(reg *Registry, pol *policy, event hooks.Event, tool string) []hooks.Hook {
	if len(pol.hooks)+len(reg.hooks) == 0 {
		return nil
	}
	return hooks.Select(e.opts.Logger, event, tool, pol.hooks, reg.hooks)
}

// hookAdditions are the texts hooks add after a result, for the model.
type hookAdditions []string

func (a *hookAdditions) add(s string) {
	if strings.TrimSpace(s) != "" {
		*a = append(*a, s)
	}
}

// context adds the additional context of hooks of event, when there is some.
func (a *hookAdditions) context(event hooks.Event, tool, text string) {
	a.add(hooks.ContextText(event, tool, text))
}

// appendTo adds the texts to a result's content, each a text block of its own.
func (a hookAdditions) appendTo(c Content) Content {
	for _, s := range a {
		c = append(c, ContentBlock{Type: "text", Text: s})
	}
	return c
}

// onError adds the texts to the content of a failed result, and returns it.
func (a hookAdditions) onError(r *Result) *Result {
	r.Block.Content = a.appendTo(r.Block.Content)
	return r
}

// errNoNext is the reason of a call whose middleware neither called next nor denied.
var errNoNext = errors.New("a middleware returned without passing the call on")
