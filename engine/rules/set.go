package rules

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/srcpos"

	"github.com/luatool/luatool/internal/spell"
)

// ruleFamily names the rule a tool's content rules are written for besides its own.
var ruleFamily = map[string]string{
	"Glob": "Read", "Grep": "Read",
	"Write": "Edit", "NotebookEdit": "Edit",
}

// Family is the rule name a tool's content rules may also be written for: Read for
// Glob and Grep, Edit for Write and NotebookEdit; the tool's own name for the
// others.
func Family(tool string) string {
	if f, ok := ruleFamily[tool]; ok {
		return f
	}
	return tool
}

// Check reports whether text is a valid permission rule, including the path
// pattern of a Read(...) or Edit(...) rule. The error says what is wrong and where,
// without repeating the rule.
func Check(text string) error {
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
	parsedRule
	behavior Behavior
	origin   Rule
}

func (r permRule) describe() string {
	return fmt.Sprintf("%q %s", r.origin.Text, describeOrigin(r.origin.Source, r.origin.File))
}

// appliesTo reports whether a rule is written for the tool: by its name, or for a
// content rule, by its family's name.
func (r permRule) appliesTo(tool string) bool {
	return r.Tool == tool || (r.HasContent && r.Tool == Family(tool))
}

// A Set is the rules in force, parsed, by behaviour, with the home directory their
// "~/x" patterns are relative to. The zero Set has no rule. A Set is immutable and
// safe for concurrent use; With and Join make new ones.
type Set struct {
	deny, ask, allow []permRule
	home             string
}

// Parse parses the rules of settings, whose "~/x" path patterns are relative to
// home; a rule that does not parse is an error naming its origin, and so is a "~/x"
// path rule when home is unknown: it could never match, and a deny rule that never
// matches fails open. Settings' mode is not Parse's: see ParseMode.
func Parse(s Settings, home string) (Set, error) {
	rs := Set{home: home}
	var errs []error
	add := func(list []Rule, b Behavior, into *[]permRule) {
		for _, sr := range list {
			r, err := parseRule(sr.Text)
			if err == nil && home == "" && r.HasContent && (r.Content == "~" || strings.HasPrefix(r.Content, "~/")) {
				err = errors.New("the home directory is not known (Options.Home), so ~ cannot be resolved")
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("%s rule %q %s: %w", b, sr.Text, describeOrigin(sr.Source, sr.File), err))
				continue
			}
			*into = append(*into, permRule{parsedRule: r, behavior: b, origin: sr})
		}
	}
	add(s.Deny, Deny, &rs.deny)
	add(s.Ask, Ask, &rs.ask)
	add(s.Allow, Allow, &rs.allow)
	return rs, errors.Join(errs...)
}

// Additions are permission rules added while running, by behaviour: those of "allow
// always" answers and of a tool's context change, checked when they were added.
type Additions struct {
	Allow, Ask, Deny []string
}

// With returns the rule set with additions, as session rules relative to cwd.
func (rs Set) With(add Additions, cwd string) Set {
	if len(add.Allow)+len(add.Ask)+len(add.Deny) == 0 {
		return rs
	}
	extra, _ := Parse(Settings{
		Allow: sessionRules(add.Allow, cwd), Ask: sessionRules(add.Ask, cwd), Deny: sessionRules(add.Deny, cwd),
	}, rs.home)
	return Set{
		deny:  append(append([]permRule(nil), rs.deny...), extra.deny...),
		ask:   append(append([]permRule(nil), rs.ask...), extra.ask...),
		allow: append(append([]permRule(nil), rs.allow...), extra.allow...),
		home:  rs.home,
	}
}

func sessionRules(texts []string, cwd string) []Rule {
	out := make([]Rule, len(texts))
	for i, t := range texts {
		out[i] = Rule{Text: t, Source: sourceSession, Root: cwd}
	}
	return out
}

// Join returns the rules of rs and other together, with rs's home directory.
func (rs Set) Join(other Set) Set {
	return Set{
		deny:  append(slices.Clip(rs.deny), other.deny...),
		ask:   append(slices.Clip(rs.ask), other.ask...),
		allow: append(slices.Clip(rs.allow), other.allow...),
		home:  rs.home,
	}
}

// UnknownTools warns about the rules that name none of known: the tools' names,
// aliases and rule families (Family), of the whole set, hidden tools included, and
// of the tools a host offers without loading them, in the order hints prefer them.
// Such a rule is most likely misspelt (bash for Bash) and does nothing. Rules for
// MCP tools of other servers (mcp__server__tool) are left alone.
func (rs Set) UnknownTools(known []string) []diag.Diagnostic {
	seen := map[string]bool{}
	var names []string
	for _, n := range known {
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	var diags []diag.Diagnostic
	for _, list := range [][]permRule{rs.deny, rs.ask, rs.allow} {
		for _, r := range list {
			if seen[r.Tool] || strings.HasPrefix(r.Tool, "mcp__") {
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

// HasDeny reports whether the set has deny rules, of any kind.
func (rs Set) HasDeny() bool { return len(rs.deny) > 0 }

// DeniesTool reports whether a tool-level deny rule names the tool: such a tool is not
// offered at all.
func (rs Set) DeniesTool(name string) bool {
	for _, r := range rs.deny {
		if !r.HasContent && r.Tool == name {
			return true
		}
	}
	return false
}

// HiddenPaths returns what bindings.Call.Hidden reports for a call working in cwd:
// whether a content deny rule written for Read matches an absolute path, as the
// original passes such rules to ripgrep as "!" globs so that Glob and Grep do not
// list the files. It returns nil when no such rule is in force.
func (rs Set) HiddenPaths(cwd string) func(absPath string) bool {
	return rs.readDenyTest(cwd, pathMatcher.match)
}

// HiddenBelow returns what bindings.Call.HiddenBelow reports for a call working in
// cwd: whether a content deny rule written for Read may match a directory or a path
// below it, now or once made (see pathMatcher.matchBelow). The kernel sandbox grants
// a directory for which it is false as a whole, and walks the others entry by entry
// with HiddenPaths, so that both come from the same rules and matching. It returns
// nil when no such rule is in force.
func (rs Set) HiddenBelow(cwd string) func(absDir string) bool {
	return rs.readDenyTest(cwd, pathMatcher.matchBelow)
}

// readDenyTest returns a test of a path that holds when test holds for one of the
// content deny rules written for Read, prepared for a call working in cwd; nil when
// there are none.
func (rs Set) readDenyTest(cwd string, test func(pathMatcher, string) bool) func(string) bool {
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

// A Target is what the content rules of one call are matched against: the path the
// call names (its tool's getPath), or else the parts of the command it runs (its
// ruleContent), or neither, which fails closed: every content deny and ask rule
// matches it, and no content allow rule does.
type Target struct {
	// Path is the absolute path the call names, as given: not cleaned, since a ".."
	// after a symbolic link goes where the kernel takes it, not where cleaning does.
	// Empty when the call names none.
	Path string
	// Parts are the parts of the command the call runs, one for each command of a
	// compound shell command, when it names no path.
	Parts []string
	// Cwd is the call's working directory, which "x" and "./x" patterns are relative
	// to.
	Cwd string
}

// Denies returns why the deny rules deny a call of tool, and whether they do: a
// tool-level deny rule naming it, then a content deny rule for it (or its family)
// that matches the call. target gives what the call's content rules match; it is
// asked for only when a content rule needs it.
func (rs Set) Denies(tool string, target func() Target) (string, bool) {
	for _, r := range rs.deny {
		if r.appliesTo(tool) && !r.HasContent && r.Tool == tool {
			return fmt.Sprintf("Permission to use %s has been denied by the rule %s.", tool, r.describe()), true
		}
	}
	for _, r := range rs.deny {
		if r.appliesTo(tool) && r.HasContent && rs.matches(r, target()) {
			return fmt.Sprintf("Permission to use %s has been denied by the rule %s.", tool, r.describe()), true
		}
	}
	return "", false
}

// Asks returns why an ask rule asks before a call of tool runs (the first that
// names it, or is a content rule for it that matches the call), or "" when none
// does. target is as for Denies.
func (rs Set) Asks(tool string, target func() Target) string {
	for _, r := range rs.ask {
		if r.appliesTo(tool) && (!r.HasContent && r.Tool == tool || r.HasContent && rs.matches(r, target())) {
			return fmt.Sprintf("The rule %s asks before %s runs.", r.describe(), tool)
		}
	}
	return ""
}

// Allows reports whether the allow rules let a call of tool through: a tool-level
// allow; for a path, a content allow matching it; for a command, every part matched
// by some content allow (not necessarily the same one), as each subcommand is allowed
// on its own in the original. target is as for Denies.
func (rs Set) Allows(tool string, target func() Target) bool {
	if len(rs.allow) == 0 {
		return false
	}
	tg := target()
	for _, r := range rs.allow {
		if r.appliesTo(tool) && !r.HasContent && r.Tool == tool {
			return true
		}
	}
	if tg.Path == "" && len(tg.Parts) > 0 {
		for _, c := range tg.Parts {
			if !slices.ContainsFunc(rs.allow, func(r permRule) bool {
				return r.appliesTo(tool) && r.HasContent && matchContent(r.Content, c)
			}) {
				return false
			}
		}
		return true
	}
	for _, r := range rs.allow {
		if r.appliesTo(tool) && r.HasContent && rs.matches(r, tg) {
			return true
		}
	}
	return false
}

// matches reports whether a content rule matches the call, failing closed: a call
// whose path or content cannot be told matches every deny and ask rule and no allow.
func (rs Set) matches(r permRule, tg Target) bool {
	switch {
	case tg.Path != "":
		return matchPathRule(r.Content, pathBase{Root: r.origin.Root, Cwd: tg.Cwd, Home: rs.home}, filepath.Clean(tg.Path), r.behavior)
	case len(tg.Parts) > 0:
		all, any := true, false
		for _, c := range tg.Parts {
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

// Suggest returns rules that would allow calls like this one of tool from now on, for
// the person asked: a rule for the path it names, one for each part of its command,
// or else the tool-level rule.
func Suggest(tool string, target Target) []string {
	switch {
	case target.Path != "":
		return []string{parsedRule{Tool: Family(tool), Content: "/" + filepath.Clean(target.Path), HasContent: true}.String()}
	case len(target.Parts) > 0:
		var out []string
		for _, c := range target.Parts {
			out = append(out, parsedRule{Tool: tool, Content: c, HasContent: true}.String())
		}
		return out
	default:
		return []string{tool}
	}
}

// Allows reports whether the mode allows a call of tool that no rule denied or asked
// about, before the allow rules are asked: bypassPermissions allows every call;
// acceptEdits the edits (Edit, Write, NotebookEdit) of paths inside roots, under
// every name the path has (a symbolic link inside a root that leads out of it is
// outside); the other modes leave the call to the rules. target is as for
// Set.Denies.
func (m Mode) Allows(tool string, target func() Target, roots []string) bool {
	switch m {
	case ModeBypassPermissions:
		return true
	case ModeAcceptEdits:
		if Family(tool) != "Edit" {
			return false
		}
		tg := target()
		return tg.Path != "" && insideRoots(roots, filepath.Clean(tg.Path))
	}
	return false
}

// insideRoots reports whether path is inside one of roots under every name it has
// (see pathForms).
func insideRoots(roots []string, path string) bool {
	for _, f := range pathForms(path) {
		if !insideARoot(roots, f) {
			return false
		}
	}
	return true
}

// insideARoot reports whether p is inside one of the roots, each taken under its
// cleaned and its resolved name.
func insideARoot(roots []string, p string) bool {
	for _, root := range roots {
		for _, r := range uniq(filepath.Clean(root), resolvePath(root)) {
			if rel, err := filepath.Rel(r, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return true
			}
		}
	}
	return false
}
