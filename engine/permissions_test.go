package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luatool/luatool/engine/rules"
)

// permTool is a Go tool whose permission-relevant members a test sets.
type permTool struct {
	name     string
	readOnly bool
	check    func() (PermissionResult, error) // nil: the default
	path     string                           // getPath answer; "" none
	content  []string                         // ruleContent answer; nil none
	failPath bool                             // getPath and ruleContent fail
}

func (p permTool) def() ToolDef {
	d := ToolDef{
		Name:        p.name,
		InputSchema: map[string]any{"type": "object"},
		Prompt:      func(context.Context, PromptOptions) (string, error) { return "p", nil },
		IsReadOnly:  func(context.Context, map[string]any) (bool, error) { return p.readOnly, nil },
		Call: func(context.Context, map[string]any, *CallContext) (*ToolResult, error) {
			return &ToolResult{Data: "ran"}, nil
		},
	}
	if p.check != nil {
		d.CheckPermissions = func(context.Context, map[string]any, *CallContext) (PermissionResult, error) { return p.check() }
	}
	if p.path != "" || p.failPath {
		d.GetPath = func(context.Context, map[string]any) (string, error) {
			if p.failPath {
				return "", errors.New("cannot tell")
			}
			return p.path, nil
		}
	}
	if p.content != nil {
		d.RuleContent = func(context.Context, map[string]any) ([]string, error) { return p.content, nil }
	}
	return d
}

func ruleList(list ...string) []rules.Rule {
	var out []rules.Rule
	for _, r := range list {
		out = append(out, rules.Rule{Text: r, Source: "--allow", Root: "/work"})
	}
	return out
}

func allow() (PermissionResult, error) { return PermissionResult{Behavior: rules.Allow}, nil }
func ask() (PermissionResult, error) {
	return PermissionResult{Behavior: rules.Ask, Message: "tool asks"}, nil
}
func deny() (PermissionResult, error) {
	return PermissionResult{Behavior: rules.Deny, Message: "tool denies"}, nil
}
func passthrough() (PermissionResult, error) {
	return PermissionResult{Behavior: rules.Passthrough}, nil
}

// TestPermissionPrecedence walks every step of the permission order: rule deny, rule
// ask, the tool's deny and ask, modes, allow rules, passthrough, and the fail-closed
// cases. "asked" means CanUseTool was called (it answers allow); without a callback
// the outcome would be a deny.
func TestPermissionPrecedence(t *testing.T) {
	bash := permTool{name: "Bash", content: []string{"git status"}}
	compound := permTool{name: "Bash", content: []string{"git status", "rm -rf /"}}
	edit := permTool{name: "Edit", path: "/work/src/a.go"}
	editOutside := permTool{name: "Edit", path: "/etc/passwd"}
	grep := permTool{name: "Grep", readOnly: true, path: "/work/secrets/key"}
	for _, tc := range []struct {
		name              string
		tool              permTool
		mode              rules.Mode
		allow, ask, denyR []string
		want              string // "ran", "asked", or a substring of the deny text
	}{
		{"1 tool-level deny beats everything (and hides the tool)", permTool{name: "Bash", check: allow}, rules.ModeBypassPermissions, []string{"Bash"}, nil, []string{"Bash"}, "No such tool available: Bash"},
		{"2 content deny matches", bash, rules.ModeDefault, []string{"Bash"}, nil, []string{"Bash(git *)"}, "denied by the rule \"Bash(git *)\""},
		{"2 content deny matches any part of a compound command", compound, rules.ModeDefault, []string{"Bash(git status)"}, nil, []string{"Bash(rm:*)"}, "denied by the rule"},
		{"2 Read(...) deny covers Grep", grep, rules.ModeBypassPermissions, nil, nil, []string{"Read(/secrets/**)"}, "denied by the rule \"Read(/secrets/**)\""},
		{"2 content deny that does not match", bash, rules.ModeDefault, []string{"Bash(git status)"}, nil, []string{"Bash(rm:*)"}, "ran"},
		{"3 tool-level ask survives bypass", permTool{name: "Bash", check: allow}, rules.ModeBypassPermissions, []string{"Bash"}, []string{"Bash"}, nil, "asked"},
		{"4 content ask survives bypass and allow rules", bash, rules.ModeBypassPermissions, []string{"Bash"}, []string{"Bash(git:*)"}, nil, "asked"},
		{"5 the tool's deny beats allow rules and bypass", permTool{name: "T", check: deny}, rules.ModeBypassPermissions, []string{"T"}, nil, nil, "tool denies"},
		{"5 the tool's ask is overridden by bypass", permTool{name: "T", check: ask}, rules.ModeBypassPermissions, nil, nil, nil, "ran"},
		{"5 the tool's ask is overridden by an allow rule", permTool{name: "T", check: ask}, rules.ModeDefault, []string{"T"}, nil, nil, "ran"},
		{"5 the tool's ask asks", permTool{name: "T", check: ask}, rules.ModeDefault, nil, nil, nil, "asked"},
		{"5 a failing checkPermissions denies", permTool{name: "T", check: func() (PermissionResult, error) { return PermissionResult{}, errors.New("boom") }}, rules.ModeBypassPermissions, []string{"T"}, nil, nil, "permission check failed"},
		{"5 a garbage behaviour denies", permTool{name: "T", check: func() (PermissionResult, error) { return PermissionResult{Behavior: "maybe"}, nil }}, rules.ModeBypassPermissions, nil, nil, nil, "not allow, deny, ask or passthrough"},
		{"6 bypass allows a passthrough", permTool{name: "T", check: passthrough}, rules.ModeBypassPermissions, nil, nil, nil, "ran"},
		{"6 acceptEdits allows an edit inside the roots", edit, rules.ModeAcceptEdits, nil, nil, nil, "ran"},
		{"6 acceptEdits asks for an edit outside the roots", editOutside, rules.ModeAcceptEdits, nil, nil, nil, "asked"},
		{"6 default asks for an edit", edit, rules.ModeDefault, nil, nil, nil, "asked"},
		{"6 plan refuses an edit without asking", edit, rules.ModePlan, nil, nil, nil, "plan mode"},
		{"7 a tool-level allow rule allows", permTool{name: "T"}, rules.ModeDefault, []string{"T"}, nil, nil, "ran"},
		{"7 an Edit(...) allow rule covers Write", permTool{name: "Write", path: "/work/src/a.go"}, rules.ModeDefault, []string{"Edit(/src/**)"}, nil, nil, "ran"},
		{"7 an allow must match every part of a compound command", compound, rules.ModeDefault, []string{"Bash(git status)"}, nil, nil, "asked"},
		{"7 each part may be allowed by its own rule", compound, rules.ModeDefault, []string{"Bash(git status)", "Bash(rm -rf /)"}, nil, nil, "ran"},
		{"7 a prefix rule matches at a word boundary only", permTool{name: "Bash", content: []string{"npm run test:unit"}}, rules.ModeDefault, []string{"Bash(npm run test:*)"}, nil, nil, "asked"},
		{"8 the default allows a read-only tool", permTool{name: "T", readOnly: true}, rules.ModeDefault, nil, nil, nil, "ran"},
		{"8 the default asks for a tool that writes", permTool{name: "T"}, rules.ModeDefault, nil, nil, nil, "asked"},
		{"8 passthrough asks", permTool{name: "T", check: passthrough}, rules.ModeDefault, nil, nil, nil, "asked"},
		{"dontAsk turns an ask into a deny", permTool{name: "T"}, rules.ModeDontAsk, nil, nil, nil, "dontAsk mode"},
		{"fail closed: no path or content matches every content deny", permTool{name: "Custom"}, rules.ModeBypassPermissions, nil, nil, []string{"Custom(anything)"}, "denied by the rule"},
		{"fail closed: a failing getPath matches every content deny", permTool{name: "Edit", failPath: true}, rules.ModeBypassPermissions, nil, nil, []string{"Edit(/src/**)"}, "denied by the rule"},
		{"fail closed: no path never matches a content allow", permTool{name: "Custom"}, rules.ModeDefault, []string{"Custom(anything)"}, nil, nil, "asked"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			asked := false
			e := newTestEngine(t, Options{
				Roots: []string{"/work"}, Cwd: "/work", Mode: tc.mode, Tools: []ToolDef{tc.tool.def()},
				Permissions: rules.Settings{Allow: ruleList(tc.allow...), Ask: ruleList(tc.ask...), Deny: ruleList(tc.denyR...)},
				CanUseTool: func(context.Context, PermissionRequest) (PermissionDecision, error) {
					asked = true
					return PermissionDecision{Behavior: rules.Allow}, nil
				},
			})
			r := e.Call(bg, ToolUse{ID: "1", Name: tc.tool.name})
			got := r.Block.Content.String()
			switch tc.want {
			case "ran":
				if asked || got != "ran" {
					t.Errorf("asked %v, %q; want it to run without asking", asked, got)
				}
			case "asked":
				if !asked || got != "ran" {
					t.Errorf("asked %v, %q; want an ask", asked, got)
				}
			default:
				wantStage := StagePermission
				if strings.HasPrefix(tc.want, "No such tool") {
					wantStage = StageLookup
				}
				if asked || !r.Block.IsError || !strings.Contains(got, tc.want) || r.Stage != wantStage {
					t.Errorf("asked %v, %q (stage %s); want a deny containing %q", asked, got, r.Stage, tc.want)
				}
			}
		})
	}
}

// An ask with no callback is a deny; a tool-level deny hides the tool; "allow always"
// answers hold for later calls; an abort stops the turn.
func TestPermissionAskOutcomes(t *testing.T) {
	tool := permTool{name: "Bash", content: []string{"make"}}
	e := newTestEngine(t, Options{Tools: []ToolDef{tool.def()}})
	if r := e.Call(bg, ToolUse{ID: "1", Name: "Bash"}); !strings.Contains(r.Block.Content.String(), "no one can be asked") {
		t.Errorf("no callback: %q", r.Block.Content.String())
	}

	hidden := newTestEngine(t, Options{Tools: []ToolDef{tool.def(), permTool{name: "Other", readOnly: true}.def()},
		Permissions: rules.Settings{Deny: ruleList("Bash")}})
	if _, ok := hidden.Registry().Lookup("Bash"); ok || len(hidden.Registry().Names()) != 1 {
		t.Errorf("a tool-level deny must hide the tool: %v", hidden.Registry().Names())
	}

	var asks []PermissionRequest
	always := newTestEngine(t, Options{Tools: []ToolDef{tool.def()}, CanUseTool: func(_ context.Context, req PermissionRequest) (PermissionDecision, error) {
		asks = append(asks, req)
		return PermissionDecision{Behavior: rules.Allow, AddRules: req.Suggestions}, nil
	}})
	always.Call(bg, ToolUse{ID: "1", Name: "Bash"})
	always.Call(bg, ToolUse{ID: "2", Name: "Bash"})
	if len(asks) != 1 || len(asks[0].Suggestions) != 1 || asks[0].Suggestions[0] != "Bash(make)" {
		t.Errorf("asks %+v: want one ask suggesting Bash(make), then none", asks)
	}

	abort := newTestEngine(t, Options{Tools: []ToolDef{tool.def(), permTool{name: "Read", readOnly: true}.def()},
		CanUseTool: func(context.Context, PermissionRequest) (PermissionDecision, error) {
			return PermissionDecision{Behavior: rules.Deny, Abort: true}, nil
		}})
	results := abort.Run(bg, []ToolUse{{ID: "1", Name: "Read"}, {ID: "2", Name: "Bash"}, {ID: "3", Name: "Read"}})
	if results[0].Block.IsError || results[1].Block.Content.String() != rejectMessage || results[2].Block.Content.String() != cancelMessage {
		t.Errorf("abort: %q | %q | %q", results[0].Block.Content.String(), results[1].Block.Content.String(), results[2].Block.Content.String())
	}
}

// Path rules resolve symlinks: a link inside the project to a denied file is denied.
func TestPermissionPathRulesFollowSymlinks(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "secrets"), 0o755)
	os.WriteFile(filepath.Join(dir, "secrets", "key"), []byte("k"), 0o600)
	os.Symlink(filepath.Join(dir, "secrets", "key"), filepath.Join(dir, "innocent"))
	tool := permTool{name: "Read", readOnly: true, path: filepath.Join(dir, "innocent")}
	e := newTestEngine(t, Options{Roots: []string{dir}, Cwd: dir, Tools: []ToolDef{tool.def()},
		Permissions: rules.Settings{Deny: []rules.Rule{{Text: "Read(/secrets/**)", Source: "project", Root: dir}}}})
	if r := e.Call(bg, ToolUse{ID: "1", Name: "Read"}); !r.Block.IsError || !strings.Contains(r.Block.Content.String(), "denied") {
		t.Errorf("a symlink to a denied file was allowed: %q", r.Block.Content.String())
	}
}

// A rule that does not parse makes New fail, naming where it came from.
func TestBadRuleFailsNew(t *testing.T) {
	_, err := New(Options{Cwd: t.TempDir(), Permissions: rules.Settings{Allow: []rules.Rule{{Text: "Bash(ls", Source: "project", File: "/p/.luatool/settings.json"}}}})
	if err == nil || !strings.Contains(err.Error(), "/p/.luatool/settings.json") || !strings.Contains(err.Error(), "never closed") {
		t.Errorf("error %v", err)
	}
}

// acceptEdits allows an edit inside the roots only under every name of the path: a
// symbolic link inside the root that leads out of it is outside.
func TestAcceptEditsFollowsSymlinks(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	os.Symlink(outside, filepath.Join(root, "out"))
	for _, tc := range []struct {
		path string
		want string
	}{
		{filepath.Join(root, "in.txt"), "ran"},
		{filepath.Join(root, "out", "f.txt"), "no one can be asked"},
	} {
		tool := permTool{name: "Edit", path: tc.path}
		e := newTestEngine(t, Options{Roots: []string{root}, Cwd: root, Mode: rules.ModeAcceptEdits, Tools: []ToolDef{tool.def()}})
		if got := e.Call(bg, ToolUse{ID: "1", Name: "Edit"}).Block.Content.String(); !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.path, got, tc.want)
		}
	}
}

// TestModesAreAbsolute runs every mode against every answer of a tool's
// checkPermissions, for a tool that is read-only for the input and one that is not,
// with a CanUseTool that allows: plan never runs a call that is not read-only,
// whatever checkPermissions says; dontAsk turns every ask into a deny; bypass allows
// all a tool does not deny; a tool's deny and a failing check deny in every mode.
func TestModesAreAbsolute(t *testing.T) {
	answers := map[string]func() (PermissionResult, error){
		"absent":      nil,
		"allow":       allow,
		"ask":         ask,
		"passthrough": passthrough,
		"deny":        deny,
		"error":       func() (PermissionResult, error) { return PermissionResult{}, errors.New("boom") },
	}
	expect := func(mode rules.Mode, answer string, readOnly bool) string {
		switch {
		case mode == rules.ModePlan && !readOnly:
			return "plan" // before the tool is even asked
		case answer == "deny" || answer == "error":
			return "denied"
		case mode == rules.ModeBypassPermissions:
			return "ran"
		case answer == "allow" || (answer == "absent" && readOnly):
			return "ran"
		case mode == rules.ModeDontAsk:
			return "dontAsk"
		}
		return "asked"
	}
	for _, mode := range rules.Modes() {
		for answer, check := range answers {
			for _, readOnly := range []bool{true, false} {
				want := expect(mode, answer, readOnly)
				t.Run(fmt.Sprintf("%s/%s/readOnly=%v", mode, answer, readOnly), func(t *testing.T) {
					asked := false
					e := newTestEngine(t, Options{
						Roots: []string{"/work"}, Cwd: "/work", Mode: mode,
						Tools: []ToolDef{permTool{name: "T", readOnly: readOnly, check: check}.def()},
						CanUseTool: func(context.Context, PermissionRequest) (PermissionDecision, error) {
							asked = true
							return PermissionDecision{Behavior: rules.Allow}, nil
						},
					})
					r := e.Call(bg, ToolUse{ID: "1", Name: "T"})
					got := r.Block.Content.String()
					var outcome string
					switch {
					case got == "ran" && asked:
						outcome = "asked"
					case got == "ran":
						outcome = "ran"
					case strings.Contains(got, "plan mode"):
						outcome = "plan"
					case strings.Contains(got, "dontAsk mode"):
						outcome = "dontAsk"
					case r.Stage == StagePermission:
						outcome = "denied"
					default:
						outcome = fmt.Sprintf("%s %q", r.Stage, got)
					}
					if outcome != want {
						t.Errorf("got %s (%q), want %s", outcome, got, want)
					}
				})
			}
		}
	}
}

// A rule naming a tool of Options.UnloadedTools, or of its rule family, is not
// reported as naming no tool; one naming neither is.
func TestUnloadedToolsAreKnownToRules(t *testing.T) {
	e := newTestEngine(t, Options{Tools: []ToolDef{permTool{name: "Read", readOnly: true}.def()},
		UnloadedTools: []string{"Bash", "Grep"},
		Permissions:   rules.Settings{Allow: ruleList("Bash(ls)", "Grep", "Bsh(x)")}})
	var warned []string
	for _, d := range e.Load() {
		warned = append(warned, d.Message)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], `"Bsh(x)"`) || !strings.Contains(warned[0], "did you mean Bash?") {
		t.Errorf("diagnostics %q: want only Bsh(x), with Bash suggested", warned)
	}
}
