package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/luatool/luatool/engine/hooks"
	"github.com/luatool/luatool/engine/rules"
)

// The permission step. Deny beats ask beats allow, in this order (the original's, with
// content rules evaluated by the engine for every tool):
//
//  1. a tool-level deny rule (Bash) denies;
//  2. a content deny rule (Bash(rm *), Read(./secrets/**)) that matches the input denies;
//     then, in plan mode, a call that is not read-only is denied, whatever follows says;
//  3. a tool-level ask rule asks, even in bypassPermissions mode;
//  4. a content ask rule that matches asks, even in bypassPermissions mode, and so
//     does a PreToolUse hook's ask (see package hooks); the ask is made after steps
//     5 and 6, whose deny and whose reason say more;
//  5. the tool's own checkPermissions: deny denies; ask and passthrough are kept;
//  6. the safety check (the original's step 1g; see rules.Protected): a call that is
//     not read-only and whose getPath names a protected path, or whose checkPermissions
//     asked with a SafetyCheck reason, asks a person, whatever the mode, the allow
//     rules, the tool's own allow or a hook's allow say; in dontAsk mode, or with
//     no one to ask, it is denied with the reason. A getPath that fails or gives no
//     path counts as protected: what the call writes cannot be told;
//  7. the mode: bypassPermissions allows; acceptEdits allows edits (the Edit family)
//     of paths inside the roots; default and plan change nothing here;
//  8. an allow rule, tool-level or content, that matches allows;
//  9. the tool's own allow, or a PreToolUse hook's, allows (but for a tool that
//     declares network "*", which needs a rule, a mode or a person for every host it
//     reaches: its own allow counts as passthrough); what is left is an ask, which goes to CanUseTool.
//     In dontAsk mode an ask is a deny, and with no callback it is a deny that says
//     what would allow the call.
//
// The rules, the modes and what is protected are package rules': content rules match
// a tool's getPath (gitignore-style path patterns, relative to the root of the
// settings that hold them) or its ruleContent (a command: exact, "cmd:*" prefix, or *
// wildcard; with several parts, as a compound shell command has, a deny or ask
// matches when any part does and an allow only when every part does). A tool with
// neither fails closed: its content deny and ask rules match, its content allow rules
// never do. Read(...) rules also govern Glob and Grep, Edit(...) rules Edit, Write and
// NotebookEdit.

// decision is the outcome of the permission step before any person is asked.
type decision struct {
	behavior rules.Behavior // Allow, Deny or Ask
	message  string
	input    map[string]any // the input to call with (possibly updated by the tool)
	// byRule is set for an ask that an ask rule or the safety check made: message
	// says why, and no allow rule would let the call through.
	byRule bool
	// protected is set for the ask of the safety check: only a person may answer it.
	protected bool
}

// rulesFor returns the rules in force for a call of the turn: the turn's policy's and the
// principal's profile's, with the turn's additions. The session's ("allow always"
// answers) are looked up only when a call would otherwise be asked about
// (allowedAlways): they only allow, and a call that needs no person, such as a
// read-only Glob inside the roots, must not wait for the session store.
func (e *Engine) rulesFor(tc *turn) rules.Set {
	rs := tc.policy.rules
	if tc.profile != nil {
		rs = rs.Join(tc.profile.rules)
	}
	return rs.With(rules.Additions{Allow: tc.rules.Allow, Ask: tc.rules.Ask, Deny: tc.rules.Deny}, tc.cwd)
}

// allowedAlways reports whether an "allow always" answer of the session allows the
// call of tool; the error is the session store's, which must not count as no.
func (e *Engine) allowedAlways(ctx context.Context, tc *turn, tool string, tg func() rules.Target) (bool, error) {
	always, err := tc.session.rules(ctx)
	if err != nil || len(always) == 0 {
		return false, err
	}
	// The engine's set lends its home directory (for ~ in a rule); its own allow rules
	// were asked before.
	return tc.policy.rules.With(rules.Additions{Allow: always}, tc.cwd).Allows(tool, tg), nil
}

// decide runs steps 1 to 9 of the permission order for one call. hook is the
// PreToolUse hooks' permission (not Deny, which ended the call before): Ask is an ask
// after the ask rules, whatever allow rules and the mode say; Allow stands in for a
// person's yes at the end, so that it beats nothing but the ask CanUseTool would get.
func (e *Engine) decide(ctx context.Context, t *Tool, input map[string]any, cc *CallContext, tc *turn, hook hooks.Decision) decision {
	rs := cc.rules
	// What content rules match is asked of the tool only when a rule needs it, and
	// again after the tool updated the input.
	var target *rules.Target
	tg := func() rules.Target {
		if target == nil {
			t := e.ruleTarget(ctx, t, input, tc.cwd)
			target = &t
		}
		return *target
	}
	name := t.Name()
	if why, denied := rs.Denies(name, tg); denied {
		return decision{behavior: rules.Deny, message: why}
	}
	if tc.mode == rules.ModePlan && !cc.readOnly {
		// Plan mode runs read-only calls only: no rule, answer or tool says otherwise.
		return decision{behavior: rules.Deny, message: planModeText(name)}
	}
	// An ask rule's or a hook's ask stands whatever follows allows; the tool's deny
	// and the safety check, which say more, come first.
	asked := rs.Asks(name, tg)
	if asked == "" && hook.Permission == rules.Ask {
		asked = hooks.AskText(name, hook.Reason)
	}
	p := t.CheckPermissions(ctx, input, cc)
	if p.Behavior == rules.Deny {
		return decision{behavior: rules.Deny, message: p.Message}
	}
	if p.Behavior == rules.Allow && t.perDomain() {
		// A tool that reaches any host the model names cannot allow itself: each
		// host needs a rule, a mode or a person (see network.go).
		p.Behavior = rules.Passthrough
	}
	if p.UpdatedInput != nil {
		updated, err := t.Schema().Prepare(p.UpdatedInput)
		if err != nil {
			return decision{behavior: rules.Deny, message: toolUseError(inputValidationText(name, "", err))}
		}
		input, target = updated, nil
	}
	if why := e.safetyCheck(t, p, cc, tg); why != "" {
		return decision{behavior: rules.Ask, message: strings.TrimSpace(asked + " " + why), input: input, byRule: true, protected: true}
	}
	if asked != "" {
		return decision{behavior: rules.Ask, message: asked, input: input, byRule: true}
	}
	if tc.mode.Allows(name, tg, e.opts.Roots) || rs.Allows(name, tg) {
		return decision{behavior: rules.Allow, input: input}
	}
	if p.Behavior == rules.Allow || hook.Permission == rules.Allow {
		return decision{behavior: rules.Allow, input: input}
	}
	// Step 8 for the session's allow rules: last, since only an ask needs them.
	switch always, err := e.allowedAlways(ctx, tc, name, tg); {
	case err != nil:
		return decision{behavior: rules.Deny, message: storeUnavailableText(name)}
	case always:
		return decision{behavior: rules.Allow, input: input}
	}
	msg := p.Message
	if msg == "" {
		msg = fmt.Sprintf("%s needs your permission.", name)
	}
	return decision{behavior: rules.Ask, message: msg, input: input}
}

// safetyCheck is step 6 of decide: the text of the ask when the call would write
// something protected, "" when it would not. p is the tool's own answer; tg gives
// what its getPath names.
func (e *Engine) safetyCheck(t *Tool, p PermissionResult, cc *CallContext, tg func() rules.Target) string {
	name := t.Name()
	if p.Behavior == rules.Ask && p.SafetyCheck != "" {
		msg := p.Message
		if msg == "" {
			msg = fmt.Sprintf("%s would change something protected: %s.", name, p.SafetyCheck)
		}
		return msg + " " + protectedAskNote
	}
	if cc.readOnly || t.def.GetPath == nil {
		return ""
	}
	target := tg()
	if target.Path == "" {
		return fmt.Sprintf("%s gave no path it writes, so whether that is protected cannot be told. %s", name, protectedAskNote)
	}
	if why := cc.protectedOf().Why(target.Path); why != "" {
		return fmt.Sprintf("%s wants to write %s, which is protected: %s. %s", name, target.Path, why, protectedAskNote)
	}
	return ""
}

// protectedAskNote ends the text of a safety check's ask.
const protectedAskNote = "Only a person can approve this: no mode, allow rule, hook or tool's own answer does."

// planModeText refuses a call that is not read-only in plan mode.
func planModeText(tool string) string {
	return fmt.Sprintf("Permission to use %s was not granted: the session is in plan mode, in which only read-only calls run. Present your plan first; changes can be made once plan mode is left.", tool)
}

// ruleTarget asks the tool what the content rules of its call with input match:
// the path its getPath names, made absolute from cwd, or else the parts of its
// ruleContent.
func (e *Engine) ruleTarget(ctx context.Context, t *Tool, input map[string]any, cwd string) rules.Target {
	target := rules.Target{Cwd: cwd}
	if p, ok := t.GetPath(ctx, input); ok && p != "" {
		if !filepath.IsAbs(p) {
			p = cwd + string(filepath.Separator) + p
		}
		target.Path = p
		return target
	}
	if parts, ok := t.RuleContent(ctx, input); ok && len(parts) > 0 {
		target.Parts = parts
	}
	return target
}
