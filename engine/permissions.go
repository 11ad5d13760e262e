package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/srcpos"

	"github.com/luatool/luatool/internal/spell"
)

// The permission step. Deny beats ask beats allow, in this order (the original's, with
// content rules evaluated by the engine for every tool):
//
//  1. a tool-level deny rule (Bash) denies;
//  2. a content deny rule (Bash(rm *), Read(./secrets/**)) that matches the input denies;
//     then, in plan mode, a call that is not read-only is denied, whatever follows says;
//  3. a tool-level ask rule asks, even in bypassPermissions mode;
//  4. a content ask rule that matches asks, even in bypassPermissions mode, and so
//     does a PreToolUse hook's ask (see hook.go); the ask is made after steps 5 and
//     6, whose deny and whose reason say more;
//  5. the tool's own checkPermissions: deny denies; ask and passthrough are kept;
//  6. the safety check (the original's step 1g; see protect.go): a call that is not
//     read-only and whose getPath names a protected path, or whose checkPermissions
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
// Content rules match a tool's getPath (gitignore-style path patterns, relative to the
// root of the settings that hold them) or its ruleContent (a command: exact, "cmd:*"
// prefix, or * wildcard; with several parts, as a compound shell command has, a deny or
// ask matches when any part does and an allow only when every part does). A tool with
// neither fails closed: its content deny and ask rules match, its content allow rules
// never do. Read(...) rules also govern Glob and Grep, Edit(...) rules Edit, Write and
// NotebookEdit.

// ruleFamily names the rule a tool's content rules are written for besides its own.
var ruleFamily = map[string]string{
	"Glob": "Read", "Grep": "Read",
	"Write": "Edit", "NotebookEdit": "Edit",
}

// CheckRule reports whether text is a valid permission rule, including the path
// pattern of a Read(...) or Edit(...) rule. The error says what is wrong and where,
// without repeating the rule.
func CheckRule(text string) error {
	if strings.TrimSpace(text) == "" {
		return errors.New("a rule may not be empty")
	}
	r, err := parseRule(text)
	var re *ruleError
	if errors.As(err, &re) {
		if re.Column > 0 {
			return fmt.Errorf("column %d: %s", re.Column, re.Problem)
		}
		return errors.New(re.Problem)
	}
	if err != nil {
		return err
	}
	if (r.Tool == "Read" || r.Tool == "Edit") && r.HasContent {
		if err := validatePathPattern(r.Content); err != nil {
			return fmt.Errorf("path pattern: %w", err)
		}
	}
	return nil
}

// permRule is a parsed rule with its behaviour and origin.
type permRule struct {
	rule
	behavior PermissionBehavior
	origin   SourcedRule
}

func (r permRule) describe() string {
	return fmt.Sprintf("%q %s", r.origin.Text, describeOrigin(r.origin.Source, r.origin.File))
}

// ruleSet is the rules in force, parsed, by behaviour, with the home directory their
// "~/x" patterns are relative to.
type ruleSet struct {
	deny, ask, allow []permRule
	home             string
}

// parseRules parses the rules of settings; a rule that does not parse is an error
// naming its origin, and so is a "~/x" path rule when home is unknown: it could never
// match, and a deny rule that never matches fails open.
func parseRules(s PermissionSettings, home string) (ruleSet, error) {
	rs := ruleSet{home: home}
	var errs []error
	add := func(list []SourcedRule, b PermissionBehavior, into *[]permRule) {
		for _, sr := range list {
			r, err := parseRule(sr.Text)
			if err == nil && home == "" && r.HasContent && (r.Content == "~" || strings.HasPrefix(r.Content, "~/")) {
				err = errors.New("the home directory is not known (Options.Home), so ~ cannot be resolved")
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("%s rule %q %s: %w", b, sr.Text, describeOrigin(sr.Source, sr.File), err))
				continue
			}
			*into = append(*into, permRule{rule: r, behavior: b, origin: sr})
		}
	}
	add(s.Deny, Deny, &rs.deny)
	add(s.Ask, Ask, &rs.ask)
	add(s.Allow, Allow, &rs.allow)
	return rs, errors.Join(errs...)
}

// with returns the rule set with a turn's additions (rule strings already checked
// when they were added) as session rules relative to cwd.
func (rs ruleSet) with(add ruleAdditions, cwd string) ruleSet {
	if len(add.allow)+len(add.ask)+len(add.deny) == 0 {
		return rs
	}
	extra, _ := parseRules(PermissionSettings{
		Allow: sessionRules(add.allow, cwd), Ask: sessionRules(add.ask, cwd), Deny: sessionRules(add.deny, cwd),
	}, rs.home)
	return ruleSet{
		deny:  append(append([]permRule(nil), rs.deny...), extra.deny...),
		ask:   append(append([]permRule(nil), rs.ask...), extra.ask...),
		allow: append(append([]permRule(nil), rs.allow...), extra.allow...),
		home:  rs.home,
	}
}

func sessionRules(texts []string, cwd string) []SourcedRule {
	out := make([]SourcedRule, len(texts))
	for i, t := range texts {
		out[i] = SourcedRule{Text: t, Source: sourceSession, Root: cwd}
	}
	return out
}

// unknownTools warns about the rules that name no tool of tools (the whole set,
// hidden tools included) or of the unloaded ones by its name, an alias or a rule family (Read for Glob and
// Grep, Edit for Write): such a rule is most likely misspelt (bash for Bash) and does
// nothing. Rules for MCP tools of other servers (mcp__server__tool) are left alone.
func (rs ruleSet) unknownTools(tools []*Tool, unloaded []string) []diag.Diagnostic {
	known := map[string]bool{}
	var names []string
	add := func(n string) {
		if !known[n] {
			known[n] = true
			names = append(names, n)
		}
	}
	for _, t := range tools {
		add(t.Name())
		for _, a := range t.Aliases() {
			add(a)
		}
		add(ruleName(t.Name()))
	}
	for _, n := range unloaded {
		add(n)
		add(ruleName(n))
	}
	var diags []diag.Diagnostic
	for _, list := range [][]permRule{rs.deny, rs.ask, rs.allow} {
		for _, r := range list {
			if known[r.Tool] || strings.HasPrefix(r.Tool, "mcp__") {
				continue
			}
			msg := fmt.Sprintf("the %s rule %s names no tool, so it does nothing", r.behavior, r.describe())
			if s := spell.Suggest(r.Tool, names); s != "" {
				msg += fmt.Sprintf(" (did you mean %s?)", s)
			}
			diags = append(diags, diag.Diagnostic{Pos: srcpos.Pos{File: r.origin.File}, Severity: diag.SeverityWarning, Message: msg})
		}
	}
	return diags
}

// deniesTool reports whether a tool-level deny rule names the tool: such a tool is not
// offered at all.
func (rs ruleSet) deniesTool(name string) bool {
	for _, r := range rs.deny {
		if !r.HasContent && r.Tool == name {
			return true
		}
	}
	return false
}

// decision is the outcome of the permission step before any person is asked.
type decision struct {
	behavior PermissionBehavior // Allow, Deny or Ask
	message  string
	input    map[string]any // the input to call with (possibly updated by the tool)
	// byRule is set for an ask that an ask rule or the safety check made: message
	// says why, and no allow rule would let the call through.
	byRule bool
	// protected is set for the ask of the safety check: only a person may answer it.
	protected bool
}

// rulesFor returns the rules in force for a call of the turn: the engine's and the
// principal's profile's, with the session's ("allow always" answers) and the turn's
// additions.
func (e *Engine) rulesFor(ctx context.Context, tc *turn) ruleSet {
	rs := e.rules
	if tc.profile != nil {
		rs = rs.join(tc.profile.rules)
	}
	always := tc.session.rules(ctx)
	if len(always)+len(tc.rules.allow)+len(tc.rules.ask)+len(tc.rules.deny) > 0 {
		rs = rs.with(ruleAdditions{
			allow: append(always, tc.rules.allow...),
			ask:   tc.rules.ask,
			deny:  tc.rules.deny,
		}, tc.cwd)
	}
	return rs
}

// join returns the rules of rs and other together.
func (rs ruleSet) join(other ruleSet) ruleSet {
	return ruleSet{
		deny:  append(slices.Clip(rs.deny), other.deny...),
		ask:   append(slices.Clip(rs.ask), other.ask...),
		allow: append(slices.Clip(rs.allow), other.allow...),
		home:  rs.home,
	}
}

// hiddenPaths returns what bindings.Call.Hidden reports for a call working in cwd:
// whether a content deny rule written for Read matches an absolute path, as the
// original passes such rules to ripgrep as "!" globs so that Glob and Grep do not
// list the files. It returns nil when no such rule is in force.
func (rs ruleSet) hiddenPaths(cwd string) func(absPath string) bool {
	return rs.readDenyTest(cwd, pathMatcher.match)
}

// hiddenBelow returns what bindings.Call.HiddenBelow reports for a call working in
// cwd: whether a content deny rule written for Read may match a directory or a path
// below it, now or once made (see pathMatcher.matchBelow). The kernel sandbox grants
// a directory for which it is false as a whole, and walks the others entry by entry
// with hiddenPaths, so that both come from the same rules and matching. It returns
// nil when no such rule is in force.
func (rs ruleSet) hiddenBelow(cwd string) func(absDir string) bool {
	return rs.readDenyTest(cwd, pathMatcher.matchBelow)
}

// readDenyTest returns a test of a path that holds when test holds for one of the
// content deny rules written for Read, prepared for a call working in cwd; nil when
// there are none.
func (rs ruleSet) readDenyTest(cwd string, test func(pathMatcher, string) bool) func(string) bool {
	var matchers []pathMatcher
	for _, r := range rs.deny {
		if r.HasContent && r.Tool == "Read" {
			matchers = append(matchers, newPathMatcher(r.Content, pathBase{Root: r.origin.Root, Cwd: cwd, Home: rs.home}, Deny))
		}
	}
	if matchers == nil {
		return nil
	}
	return func(p string) bool {
		for _, m := range matchers {
			if test(m, p) {
				return true
			}
		}
		return false
	}
}

// decide runs steps 1 to 9 of the permission order for one call. hook is the
// PreToolUse hooks' permission (not Deny, which ended the call before): Ask is an ask
// after the ask rules, whatever allow rules and the mode say; Allow stands in for a
// person's yes at the end, so that it beats nothing but the ask CanUseTool would get.
func (e *Engine) decide(ctx context.Context, t *Tool, input map[string]any, cc *CallContext, tc *turn, hook HookDecision) decision {
	rs := cc.rules
	// What content rules match is asked of the tool only when a rule needs it, and
	// again after the tool updated the input.
	var target *ruleTarget
	tg := func() ruleTarget {
		if target == nil {
			t := e.ruleTarget(ctx, t, input, tc.cwd)
			target = &t
		}
		return *target
	}
	name := t.Name()
	for _, r := range rs.deny {
		if r.appliesTo(name) && !r.HasContent && r.Tool == name {
			return decision{behavior: Deny, message: fmt.Sprintf("Permission to use %s has been denied by the rule %s.", name, r.describe())}
		}
	}
	for _, r := range rs.deny {
		if r.appliesTo(name) && r.HasContent && tg().matches(r) {
			return decision{behavior: Deny, message: fmt.Sprintf("Permission to use %s has been denied by the rule %s.", name, r.describe())}
		}
	}
	if tc.mode == ModePlan && !cc.readOnly {
		// Plan mode runs read-only calls only: no rule, answer or tool says otherwise.
		return decision{behavior: Deny, message: planModeText(name)}
	}
	// An ask rule's or a hook's ask stands whatever follows allows; the tool's deny
	// and the safety check, which say more, come first.
	var asked string
	for _, r := range rs.ask {
		if r.appliesTo(name) && (!r.HasContent && r.Tool == name || r.HasContent && tg().matches(r)) {
			asked = fmt.Sprintf("The rule %s asks before %s runs.", r.describe(), name)
			break
		}
	}
	if asked == "" && hook.Permission == Ask {
		asked = hookAskText(name, hook.Reason)
	}
	p := t.CheckPermissions(ctx, input, cc)
	if p.Behavior == Deny {
		return decision{behavior: Deny, message: p.Message}
	}
	if p.Behavior == Allow && t.perDomain() {
		// A tool that reaches any host the model names cannot allow itself: each
		// host needs a rule, a mode or a person (see network.go).
		p.Behavior = Passthrough
	}
	if p.UpdatedInput != nil {
		updated, err := t.Schema().Prepare(p.UpdatedInput)
		if err != nil {
			return decision{behavior: Deny, message: toolUseError(inputValidationText(name, err))}
		}
		input, target = updated, nil
	}
	if why := e.safetyCheck(t, p, cc, tg); why != "" {
		return decision{behavior: Ask, message: strings.TrimSpace(asked + " " + why), input: input, byRule: true, protected: true}
	}
	if asked != "" {
		return decision{behavior: Ask, message: asked, input: input, byRule: true}
	}
	switch tc.mode {
	case ModeBypassPermissions:
		return decision{behavior: Allow, input: input}
	case ModeAcceptEdits:
		if ruleName(name) == "Edit" && tg().hasPath && e.insideRoots(tg().path) {
			return decision{behavior: Allow, input: input}
		}
	}
	if len(rs.allow) > 0 && rs.allows(name, tg()) {
		return decision{behavior: Allow, input: input}
	}
	if p.Behavior == Allow || hook.Permission == Allow {
		return decision{behavior: Allow, input: input}
	}
	msg := p.Message
	if msg == "" {
		msg = fmt.Sprintf("%s needs your permission.", name)
	}
	return decision{behavior: Ask, message: msg, input: input}
}

// safetyCheck is step 6 of decide: the text of the ask when the call would write
// something protected, "" when it would not. p is the tool's own answer; tg gives
// what its getPath names.
func (e *Engine) safetyCheck(t *Tool, p PermissionResult, cc *CallContext, tg func() ruleTarget) string {
	name := t.Name()
	if p.Behavior == Ask && p.SafetyCheck != "" {
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
	if !target.hasPath {
		return fmt.Sprintf("%s gave no path it writes, so whether that is protected cannot be told. %s", name, protectedAskNote)
	}
	if why := e.protector().path(target.given); why != "" {
		return fmt.Sprintf("%s wants to write %s, which is protected: %s. %s", name, target.given, why, protectedAskNote)
	}
	return ""
}

// protectedAskNote ends the text of a safety check's ask.
const protectedAskNote = "Only a person can approve this: no mode, allow rule, hook or tool's own answer does."

// planModeText refuses a call that is not read-only in plan mode.
func planModeText(tool string) string {
	return fmt.Sprintf("Permission to use %s was not granted: the session is in plan mode, in which only read-only calls run. Present your plan first; changes can be made once plan mode is left.", tool)
}

// ruleName is the rule name a tool's content rules may also be written for.
func ruleName(tool string) string {
	if f, ok := ruleFamily[tool]; ok {
		return f
	}
	return tool
}

// appliesTo reports whether a rule is written for the tool: by its name, or for a
// content rule, by its family's name.
func (r permRule) appliesTo(tool string) bool {
	return r.Tool == tool || (r.HasContent && r.Tool == ruleName(tool))
}

// ruleTarget is what content rules match for one call.
type ruleTarget struct {
	hasPath bool
	path    string // absolute, cleaned
	// given is the path as getPath gave it, made absolute but not cleaned: a ".."
	// after a symbolic link goes where the kernel takes it, not where cleaning does.
	given    string
	contents []string
	hasText  bool
	base     func(root string) pathBase
}

func (e *Engine) ruleTarget(ctx context.Context, t *Tool, input map[string]any, cwd string) ruleTarget {
	target := ruleTarget{base: func(root string) pathBase {
		return pathBase{Root: root, Cwd: cwd, Home: e.opts.Home}
	}}
	if p, ok := t.GetPath(ctx, input); ok && p != "" {
		if !filepath.IsAbs(p) {
			p = cwd + string(filepath.Separator) + p
		}
		target.hasPath, target.path, target.given = true, filepath.Clean(p), p
		return target
	}
	if parts, ok := t.RuleContent(ctx, input); ok && len(parts) > 0 {
		target.hasText, target.contents = true, parts
	}
	return target
}

// matches reports whether a content rule matches the call, failing closed: a call
// whose path or content cannot be told matches every deny and ask rule and no allow.
func (tg ruleTarget) matches(r permRule) bool {
	switch {
	case tg.hasPath:
		return matchPathRule(r.Content, tg.base(r.origin.Root), tg.path, r.behavior)
	case tg.hasText:
		all, any := true, false
		for _, c := range tg.contents {
			m := matchContent(r.Content, c)
			all, any = all && m, any || m
		}
		if r.behavior == Allow {
			return all
		}
		return any
	default:
		return r.behavior != Allow
	}
}

// allows reports whether the allow rules let the call through: a tool-level allow;
// for a path, a content allow matching it; for a command, every part matched by some
// content allow (not necessarily the same one), as each subcommand is allowed on its
// own in the original.
func (rs ruleSet) allows(name string, tg ruleTarget) bool {
	for _, r := range rs.allow {
		if r.appliesTo(name) && !r.HasContent && r.Tool == name {
			return true
		}
	}
	if tg.hasText {
		for _, c := range tg.contents {
			if !slices.ContainsFunc(rs.allow, func(r permRule) bool {
				return r.appliesTo(name) && r.HasContent && matchContent(r.Content, c)
			}) {
				return false
			}
		}
		return true
	}
	for _, r := range rs.allow {
		if r.appliesTo(name) && r.HasContent && tg.matches(r) {
			return true
		}
	}
	return false
}

// insideRoots reports whether path is inside the engine's roots under every name it
// has (see pathForms): a symbolic link inside a root that leads out of it is outside.
func (e *Engine) insideRoots(path string) bool {
	for _, f := range pathForms(path) {
		if !e.insideARoot(f) {
			return false
		}
	}
	return true
}

// insideARoot reports whether p is inside one of the roots, each taken under its
// cleaned and its resolved name.
func (e *Engine) insideARoot(p string) bool {
	for _, root := range e.opts.Roots {
		for _, r := range uniq(filepath.Clean(root), resolvePath(root)) {
			if rel, err := filepath.Rel(r, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return true
			}
		}
	}
	return false
}

// suggestions are rules that would allow this call from now on, for the person asked.
func (e *Engine) suggestions(ctx context.Context, t *Tool, input map[string]any, cwd string) []string {
	target := e.ruleTarget(ctx, t, input, cwd)
	switch {
	case target.hasPath:
		return []string{rule{Tool: ruleName(t.Name()), Content: "/" + target.path, HasContent: true}.String()}
	case target.hasText:
		var out []string
		for _, c := range target.contents {
			out = append(out, rule{Tool: t.Name(), Content: c, HasContent: true}.String())
		}
		return out
	default:
		return []string{t.Name()}
	}
}
