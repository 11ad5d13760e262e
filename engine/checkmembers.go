package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/srcpos"
)

// CheckMembers asks every tool of the current snapshot the members that need no
// model input, as luatool check does, and reports each that fails: the prompt (an
// error: a tool without a description cannot be offered to a model), and, when the
// tool's schema accepts an empty input, the members that take one (description,
// userFacingName, the flags, getPath, ruleContent, toAutoClassifierInput,
// renderToolUseMessage), with interruptBehavior (warnings: the tool is served with
// their safe answers). Each member runs under the limits' init timeout, so that a
// member that never returns is reported rather than waited for.
//
// The diagnostics name the file and line of the failure where the error has them,
// and the tool's source otherwise.
func (e *Engine) CheckMembers(ctx context.Context) []diag.Diagnostic {
	reg := e.Registry()
	timeout := e.opts.MemberTimeout
	var diags []diag.Diagnostic
	for _, t := range reg.Tools() {
		report := func(sev diag.Severity, member, effect string, err error) {
			if errors.Is(err, ErrReportedAtLoad) {
				return // a member of the wrong kind: loading said so already
			}
			d := diag.Diagnostic{Pos: srcpos.Pos{File: t.Source()}, Severity: sev, Message: fmt.Sprintf("%s: %s failed%s: %v", t.Name(), member, effect, modelText(err))}
			if pos := errorPosition(err); pos.File != "" {
				d.Pos = pos
			}
			d.Err = err
			diags = append(diags, d)
		}
		ask := func(fn func(ctx context.Context) error) error {
			bounded, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			return fn(bounded)
		}
		if err := ask(func(ctx context.Context) error {
			_, err := t.def.Prompt(ctx, PromptOptions{Tools: reg.Names()})
			return err
		}); err != nil {
			report(diag.SeverityError, "prompt", " (the tool cannot be offered to a model)", err)
		}
		if fn := t.def.InterruptBehavior; fn != nil {
			if err := ask(func(ctx context.Context) error { _, err := fn(ctx); return err }); err != nil {
				report(diag.SeverityWarning, "interruptBehavior", ` (it counts as "block")`, err)
			}
		}
		input, err := t.Schema().Prepare(map[string]any{})
		if err != nil {
			continue // the members that take an input cannot be asked without one
		}
		for _, m := range t.inputMembers() {
			if m.fn == nil {
				continue
			}
			if err := ask(func(ctx context.Context) error { return m.fn(ctx, input) }); err != nil {
				report(diag.SeverityWarning, m.name, " for an empty input ("+m.effect+")", err)
			}
		}
	}
	diag.Sort(diags)
	return diags
}

// An inputMember is a member of a tool that answers a question about an input, as
// CheckMembers asks it: fn is nil when the tool does not define the member.
type inputMember struct {
	name, effect string
	fn           func(ctx context.Context, input map[string]any) error
}

// inputMembers lists the members of t that take an input and have a safe answer.
func (t *Tool) inputMembers() []inputMember {
	d := t.def
	str := func(f func(context.Context, map[string]any) (string, error)) func(context.Context, map[string]any) error {
		if f == nil {
			return nil
		}
		return func(ctx context.Context, in map[string]any) error { _, err := f(ctx, in); return err }
	}
	boolean := func(f func(context.Context, map[string]any) (bool, error)) func(context.Context, map[string]any) error {
		if f == nil {
			return nil
		}
		return func(ctx context.Context, in map[string]any) error { _, err := f(ctx, in); return err }
	}
	var rule func(context.Context, map[string]any) error
	if d.RuleContent != nil {
		rule = func(ctx context.Context, in map[string]any) error { _, err := d.RuleContent(ctx, in); return err }
	}
	return []inputMember{
		{"description", "the tool name is shown instead", str(d.Description)},
		{"userFacingName", "the tool name is shown instead", str(d.UserFacingName)},
		{"isReadOnly", "it counts as false", boolean(d.IsReadOnly)},
		{"isConcurrencySafe", "it counts as false", boolean(d.IsConcurrencySafe)},
		{"isDestructive", "it counts as true", boolean(d.IsDestructive)},
		{"isOpenWorld", "it counts as true", boolean(d.IsOpenWorld)},
		{"getPath", "path rules fail closed", str(d.GetPath)},
		{"ruleContent", "content rules fail closed", rule},
		{"toAutoClassifierInput", `it counts as ""`, str(d.ToAutoClassifierInput)},
		{"renderToolUseMessage", "the default rendering is used", str(d.RenderToolUseMessage)},
	}
}
