package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luatool/luatool/engine/hooks"
	"github.com/luatool/luatool/engine/rules"
)

// protectedTool writes the path its input names; read-only when the input says so.
func protectedTool(name string) ToolDef {
	return ToolDef{
		Name:        name,
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}, "ro": map[string]any{"type": "boolean"}}},
		Prompt:      func(context.Context, PromptOptions) (string, error) { return "p", nil },
		IsReadOnly:  func(_ context.Context, in map[string]any) (bool, error) { return in["ro"] == true, nil },
		GetPath: func(_ context.Context, in map[string]any) (string, error) {
			p, _ := in["path"].(string)
			return p, nil
		},
		CheckPermissions: func(context.Context, map[string]any, *CallContext) (PermissionResult, error) {
			return PermissionResult{Behavior: rules.Allow}, nil
		},
		Call: func(context.Context, map[string]any, *CallContext) (*ToolResult, error) {
			return &ToolResult{Data: "ran"}, nil
		},
	}
}

// TestSafetyCheckBeatsModesAndAllows: a call that writes a protected path asks a
// person, whatever acceptEdits, bypassPermissions, allow rules, the tool's own allow
// or a hook's allow say (the original's step 1g); the ask offers no rule and keeps
// none; without anyone to ask, or in dontAsk mode, it is denied with the reason. A
// deny rule and plan mode still come first, a read-only call is not checked, and a
// tool's own safety check asks the same way.
func TestSafetyCheckBeatsModesAndAllows(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	gitConfig := filepath.Join(root, ".git", "config")
	in := func(path string, readOnly bool) []byte {
		return fmt.Appendf(nil, `{"path": %q, "ro": %v}`, path, readOnly)
	}
	selfCheck := ToolDef{
		Name:        "Shellish",
		InputSchema: map[string]any{"type": "object"},
		Prompt:      func(context.Context, PromptOptions) (string, error) { return "p", nil },
		CheckPermissions: func(_ context.Context, _ map[string]any, cc *CallContext) (PermissionResult, error) {
			why := cc.Protected(gitConfig)
			return PermissionResult{Behavior: rules.Ask, Message: "Shellish writes .git/config.", SafetyCheck: why}, nil
		},
		Call: func(context.Context, map[string]any, *CallContext) (*ToolResult, error) {
			return &ToolResult{Data: "ran"}, nil
		},
	}
	allowHook := decides(hooks.PreToolUse, "", "allow", hooks.Decision{Permission: rules.Allow})
	for _, tc := range []struct {
		name    string
		mode    rules.Mode
		allow   []string
		deny    []string
		hooks   []hooks.Hook
		tool    string
		input   []byte
		answer  bool   // a CanUseTool answers yes
		want    string // "ran", "asked", or a substring of the refusal
		protect bool   // the ask is the safety check's
	}{
		{"acceptEdits asks", rules.ModeAcceptEdits, nil, nil, nil, "Edit", in(gitConfig, false), true, "asked", true},
		{"bypassPermissions asks", rules.ModeBypassPermissions, nil, nil, nil, "Edit", in(gitConfig, false), true, "asked", true},
		{"a broad allow rule asks", rules.ModeDefault, []string{"Edit(**)"}, nil, nil, "Edit", in(gitConfig, false), true, "asked", true},
		{"an exact allow rule asks", rules.ModeDefault, []string{"Edit(//" + strings.TrimPrefix(gitConfig, "/") + ")"}, nil, nil, "Edit", in(gitConfig, false), true, "asked", true},
		{"a tool-level allow rule asks", rules.ModeDefault, []string{"Edit"}, nil, nil, "Edit", in(gitConfig, false), true, "asked", true},
		{"a hook's allow asks", rules.ModeDefault, nil, nil, []hooks.Hook{allowHook}, "Edit", in(gitConfig, false), true, "asked", true},
		{"an ask rule's ask is the safety check's", rules.ModeDefault, nil, nil, nil, "Edit", in(gitConfig, false), true, "asked", true},
		{"no one to ask denies with the reason", rules.ModeBypassPermissions, nil, nil, nil, "Edit", in(gitConfig, false), false, "core.fsmonitor", false},
		{"dontAsk denies with the reason", rules.ModeDontAsk, []string{"Edit"}, nil, nil, "Edit", in(gitConfig, false), true, "dontAsk mode, which refuses whatever would need approval. Edit wants to write " + gitConfig, false},
		{"a deny rule comes first", rules.ModeBypassPermissions, nil, []string{"Edit(//" + strings.TrimPrefix(gitConfig, "/") + ")"}, nil, "Edit", in(gitConfig, false), true, "denied by the rule", false},
		{"plan mode comes first", rules.ModePlan, nil, nil, nil, "Edit", in(gitConfig, false), true, "plan mode", false},
		{"a read-only call is not checked", rules.ModeDefault, nil, nil, nil, "Edit", in(gitConfig, true), true, "ran", false},
		{"a path that is not protected is left to the mode", rules.ModeAcceptEdits, nil, nil, nil, "Edit", in(filepath.Join(root, "main.go"), false), true, "ran", false},
		{"a relative path is judged from the cwd", rules.ModeBypassPermissions, nil, nil, nil, "Edit", in(".git/config", false), true, "asked", true},
		{"no path: what is written cannot be told", rules.ModeBypassPermissions, nil, nil, nil, "Edit", in("", false), true, "asked", true},
		{"the tool's own safety check asks in bypass", rules.ModeBypassPermissions, []string{"Shellish"}, nil, nil, "Shellish", []byte(`{}`), true, "asked", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var asks []PermissionRequest
			opts := Options{
				Cwd: root, Mode: tc.mode, Tools: []ToolDef{protectedTool("Edit"), selfCheck}, Hooks: tc.hooks,
				Permissions: rules.Settings{Allow: ruleList(tc.allow...), Deny: ruleList(tc.deny...)},
			}
			if tc.name == "an ask rule's ask is the safety check's" {
				opts.Permissions.Ask = ruleList("Edit")
			}
			if tc.answer {
				opts.CanUseTool = func(_ context.Context, req PermissionRequest) (PermissionDecision, error) {
					asks = append(asks, req)
					return PermissionDecision{Behavior: rules.Allow, AddRules: []string{"Edit"}}, nil
				}
			}
			e := newTestEngine(t, opts)
			r := e.Call(bg, ToolUse{ID: "1", Name: tc.tool, Input: tc.input})
			got := r.Block.Content.String()
			switch tc.want {
			case "ran":
				if len(asks) > 0 || got != "ran" {
					t.Fatalf("asked %d times, %q; want it to run unasked", len(asks), got)
				}
			case "asked":
				if len(asks) != 1 || got != "ran" {
					t.Fatalf("asked %d times, %q; want one ask", len(asks), got)
				}
			default:
				if len(asks) > 0 || !r.Block.IsError || !strings.Contains(got, tc.want) {
					t.Fatalf("asked %d times, %q; want a refusal containing %q", len(asks), got, tc.want)
				}
			}
			if len(asks) == 1 {
				req := asks[0]
				if req.Protected != tc.protect || tc.protect && (len(req.Suggestions) > 0 || !strings.Contains(req.Message, "Only a person can approve this")) {
					t.Errorf("the ask: protected %v, suggestions %q, message %q", req.Protected, req.Suggestions, req.Message)
				}
			}
			if tc.protect {
				// The "always" answer was not kept: the next call asks again.
				asks = nil
				e.Call(bg, ToolUse{ID: "2", Name: tc.tool, Input: tc.input})
				if len(asks) != 1 {
					t.Errorf("the second call asked %d times; an answer's rules must not let a protected write through", len(asks))
				}
			}
		})
	}
}

// TestLoadedDirectoriesAreProtected: the directories Load reads tools from are
// protected without the host naming them, and Options.Protected must be absolute.
func TestLoadedDirectoriesAreProtected(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	if err := os.MkdirAll(filepath.Join(root, "mytools"), 0o755); err != nil {
		t.Fatal(err)
	}
	e := newTestEngine(t, Options{Cwd: root, Mode: rules.ModeBypassPermissions, Tools: []ToolDef{protectedTool("Edit")}})
	e.Load(DirSource(filepath.Join(root, "mytools")))
	r := e.Call(bg, ToolUse{ID: "1", Name: "Edit", Input: fmt.Appendf(nil, `{"path": %q}`, filepath.Join(root, "mytools", "pwn.lua"))})
	if !r.Block.IsError || !strings.Contains(r.Block.Content.String(), "a directory luatool loads tools from") {
		t.Errorf("a write into a loaded tool directory: %q", r.Block.Content.String())
	}
	if _, err := New(Options{Cwd: root, Protected: []rules.ProtectedPath{{Path: "tools", Why: "x"}}}); err == nil || !strings.Contains(err.Error(), `"tools" is not an absolute path`) {
		t.Errorf("a relative protected path: %v", err)
	}
}
