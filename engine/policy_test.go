package engine

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/luatool/luatool/engine/hooks"
	"github.com/luatool/luatool/engine/rules"
)

// A deny rule SetPolicy adds hides the tool it names and refuses its next call;
// taking the rule away shows it again. The subscribers hear of both.
func TestSetPolicyDenyHidesAndShows(t *testing.T) {
	e := newTestEngine(t, Options{Roots: []string{"/work"}, Cwd: "/work", Tools: []ToolDef{
		permTool{name: "T", readOnly: true}.def(), permTool{name: "U", readOnly: true}.def(),
	}})
	var events []string
	defer e.Subscribe(func(ev Event) { events = append(events, ev.String()) })()
	if err := e.SetPolicy(rules.Settings{Deny: ruleList("T")}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, ok := e.Registry().Lookup("T"); ok {
		t.Error("T is still listed under a deny rule")
	}
	if got := e.Call(bg, ToolUse{ID: "1", Name: "T"}).Block.Content.String(); !strings.Contains(got, "No such tool available: T") {
		t.Errorf("call of T under the deny: %q", got)
	}
	if got := e.Call(bg, ToolUse{ID: "2", Name: "U"}).Block.Content.String(); got != "ran" {
		t.Errorf("call of U: %q", got)
	}
	if err := e.SetPolicy(rules.Settings{}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if got := e.Call(bg, ToolUse{ID: "3", Name: "T"}).Block.Content.String(); got != "ran" {
		t.Errorf("call of T once the deny is gone: %q", got)
	}
	if len(events) != 2 || !strings.Contains(events[0], "T") || !strings.Contains(events[1], "T") {
		t.Errorf("events %q, want T removed then added", events)
	}
}

// SetPolicy swaps the mode, the hooks and the protected paths with the rules.
func TestSetPolicyModeHooksProtected(t *testing.T) {
	root := t.TempDir()
	asked := 0
	e := newTestEngine(t, Options{Roots: []string{root}, Cwd: root, Tools: []ToolDef{permTool{name: "W", path: root + "/f"}.def()},
		CanUseTool: func(context.Context, PermissionRequest) (PermissionDecision, error) {
			asked++
			return PermissionDecision{Behavior: rules.Allow}, nil
		}})
	// bypassPermissions lets the write through unasked.
	if err := e.SetPolicy(rules.Settings{Mode: rules.ModeBypassPermissions}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if got := e.Call(bg, ToolUse{ID: "1", Name: "W"}).Block.Content.String(); got != "ran" || asked != 0 {
		t.Fatalf("under bypass: %q, asked %d times", got, asked)
	}
	// The file protected from now on is asked about, whatever the mode.
	if err := e.SetPolicy(rules.Settings{Mode: rules.ModeBypassPermissions}, nil, []rules.ProtectedPath{{Path: root + "/f", Why: "a test's"}}); err != nil {
		t.Fatal(err)
	}
	if e.Call(bg, ToolUse{ID: "2", Name: "W"}); asked != 1 {
		t.Errorf("a write to a newly protected file was asked about %d times, want 1", asked)
	}
	// A PreToolUse hook that denies refuses the call.
	deny := decides(hooks.PreToolUse, "W", "no", hooks.Decision{Permission: rules.Deny, Reason: "the hook says no"})
	if err := e.SetPolicy(rules.Settings{Mode: rules.ModeBypassPermissions}, []hooks.Hook{deny}, nil); err != nil {
		t.Fatal(err)
	}
	if got := e.Call(bg, ToolUse{ID: "3", Name: "W"}).Block.Content.String(); !strings.Contains(got, "the hook says no") {
		t.Errorf("call under the denying hook: %q", got)
	}
}

// A policy SetPolicy refuses changes nothing.
func TestSetPolicyBadRuleKeepsOld(t *testing.T) {
	e := newTestEngine(t, Options{Roots: []string{"/work"}, Cwd: "/work", Tools: []ToolDef{permTool{name: "T", readOnly: true}.def()},
		Permissions: rules.Settings{Deny: ruleList("T")}})
	err := e.SetPolicy(rules.Settings{Allow: []rules.Rule{{Text: "Bash(ls", Source: "--settings", File: "/s.json"}}}, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "/s.json") {
		t.Fatalf("error %v, want one naming /s.json", err)
	}
	if got := e.Call(bg, ToolUse{ID: "1", Name: "T"}).Block.Content.String(); !strings.Contains(got, "No such tool available") {
		t.Errorf("the old deny is gone: %q", got)
	}
}

// The calls of a turn keep the policy the turn started with: a deny rule swapped in
// while the turn runs does not refuse its later calls, and does refuse the next
// turn's.
func TestSetPolicyTurnKeepsItsPolicy(t *testing.T) {
	var e *Engine
	swap := ToolDef{Name: "Swap", InputSchema: map[string]any{"type": "object"},
		Prompt: func(context.Context, PromptOptions) (string, error) { return "p", nil },
		Call: func(context.Context, map[string]any, *CallContext) (*ToolResult, error) {
			return &ToolResult{Data: "swapped"}, e.SetPolicy(rules.Settings{Mode: rules.ModeBypassPermissions, Deny: ruleList("T(x)")}, nil, nil)
		}}
	e = newTestEngine(t, Options{Roots: []string{"/work"}, Cwd: "/work", Mode: rules.ModeBypassPermissions,
		Tools: []ToolDef{swap, permTool{name: "T", content: []string{"x"}}.def()}})
	rs := e.Run(bg, []ToolUse{{ID: "1", Name: "Swap"}, {ID: "2", Name: "T"}})
	if got := rs[1].Block.Content.String(); got != "ran" {
		t.Errorf("the turn's second call: %q, want ran under the turn's policy", got)
	}
	if got := e.Call(bg, ToolUse{ID: "3", Name: "T"}).Block.Content.String(); !strings.Contains(got, "denied by the rule") {
		t.Errorf("the next call: %q, want the new deny", got)
	}
}

// Calls and SetPolicy run side by side without a race (go test -race), each call
// under one of the two policies whole.
func TestSetPolicyConcurrentCalls(t *testing.T) {
	e := newTestEngine(t, Options{Roots: []string{"/work"}, Cwd: "/work", Mode: rules.ModeBypassPermissions, Tools: []ToolDef{permTool{name: "T", content: []string{"x"}}.def()}})
	a := rules.Settings{Mode: rules.ModeBypassPermissions}
	b := rules.Settings{Mode: rules.ModeBypassPermissions, Deny: ruleList("T(x)")}
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range 200 {
			if err := e.SetPolicy([]rules.Settings{a, b}[i%2], nil, nil); err != nil {
				t.Error(err)
				return
			}
		}
	})
	for range 4 {
		wg.Go(func() {
			for range 100 {
				got := e.Call(bg, ToolUse{ID: "1", Name: "T"}).Block.Content.String()
				if got != "ran" && !strings.Contains(got, "denied by the rule") {
					t.Errorf("call: %q", got)
					return
				}
			}
		})
	}
	wg.Wait()
}
