package engine

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
)

func TestWithCallHooksOverrideTheEngineOptions(t *testing.T) {
	var engineAsked, engineProgress int
	e, _ := pipelineEngine(t, Options{
		CanUseTool: func(context.Context, PermissionRequest) (PermissionDecision, error) {
			engineAsked++
			return PermissionDecision{Behavior: Deny}, nil
		},
		OnProgress: func(ProgressEvent) { engineProgress++ },
	})
	var mu sync.Mutex
	var progress []ProgressEvent
	ctx := WithCallHooks(bg, CallHooks{
		CanUseTool: func(context.Context, PermissionRequest) (PermissionDecision, error) {
			return PermissionDecision{Behavior: Allow}, nil
		},
		OnProgress: func(ev ProgressEvent) {
			mu.Lock()
			progress = append(progress, ev)
			mu.Unlock()
		},
	})
	wantOK(t, e.Call(ctx, ToolUse{ID: "toolu_h1", Name: "Guard", Input: []byte(`{"path":"/tmp/a"}`)}), "wrote /tmp/a")
	wantOK(t, e.Call(ctx, ToolUse{ID: "toolu_h2", Name: "Chatty", Input: []byte(`{}`)}), "ok")
	if engineAsked != 0 || engineProgress != 0 || len(progress) != 2 {
		t.Errorf("the engine's hooks were used (%d asks, %d progress) or the call's missed (%d progress)", engineAsked, engineProgress, len(progress))
	}
	// Hooks left nil fall back to the engine's.
	r := e.Call(WithCallHooks(bg, CallHooks{}), ToolUse{ID: "toolu_h3", Name: "Guard", Input: []byte(`{"path":"/tmp/a"}`)})
	if !r.Block.IsError || engineAsked != 1 {
		t.Errorf("with empty hooks: %q, engine asked %d times", r.Block.Content.String(), engineAsked)
	}
}

func TestDefinitions(t *testing.T) {
	e := newTestEngine(t, Options{Tools: []ToolDef{{
		Name: "Broken", InputSchema: map[string]any{"type": "object"},
		Prompt: func(context.Context, PromptOptions) (string, error) { return "", errors.New("no prompt today") },
		Call:   func(context.Context, map[string]any, *CallContext) (*ToolResult, error) { return nil, nil },
	}}})
	dir := writeDir(t, map[string]string{
		"status.lua": luaSourceWith(`name = "git.status",`, `userFacingName = "Git status",`, memberPrompt, memberSchema, memberCall,
			`isReadOnly = true,`, `isDestructive = function() return false end,`, `isIdempotent = true,`,
			`searchHint = "working tree status",`, `shouldDefer = true,`, `outputSchema = { type = "string" },`),
	})
	if diags := e.Load(DirSource(dir)); HasErrors(diags) {
		t.Fatal(diagText(diags))
	}
	defs, err := e.Definitions(bg)
	if err == nil || !strings.Contains(err.Error(), "Broken (go:Broken): prompt: no prompt today") {
		t.Errorf("error = %v, want one naming Broken", err)
	}
	if len(defs) != 1 {
		t.Fatalf("definitions = %+v, want git.status only", defs)
	}
	d := defs[0]
	if d.Name != "git.status" || d.Title != "Git status" || d.Description != "p" || d.SearchHint != "working tree status" ||
		!d.Deferred || d.Announced || d.OutputSchema["type"] != "string" {
		t.Errorf("definition = %+v", d)
	}
	// Plain values are hints; a function is not (its answer depends on the input).
	if d.Hints.ReadOnly == nil || !*d.Hints.ReadOnly || d.Hints.Destructive != nil || d.Hints.OpenWorld != nil ||
		d.Hints.Idempotent == nil || !*d.Hints.Idempotent {
		t.Errorf("hints = %+v", d.Hints)
	}
	e.Discover("git.status")
	if defs, _ := e.Definitions(bg); !defs[0].Announced {
		t.Error("a discovered tool is not announced")
	}
	// The tool is found under its API name too.
	if tool, ok := e.Registry().Lookup("git_status"); !ok || tool.Name() != "git.status" {
		t.Errorf("Lookup(git_status) = %v, %v", tool, ok)
	}
}

func TestAPINameDoesNotShadowATool(t *testing.T) {
	e := newTestEngine(t, Options{})
	dir := writeDir(t, map[string]string{
		"dotted.lua":      luaSourceWith(`name = "a.b",`, `isReadOnly = true,`, memberPrompt, memberSchema, `call = function() return "dotted" end,`),
		"underscored.lua": luaSourceWith(`name = "a_b",`, `isReadOnly = true,`, memberPrompt, memberSchema, `call = function() return "underscored" end,`),
	})
	if diags := e.Load(DirSource(dir)); HasErrors(diags) {
		t.Fatal(diagText(diags))
	}
	wantOK(t, e.Call(bg, ToolUse{ID: "toolu_ab", Name: "a_b", Input: []byte(`{}`)}), "underscored")
	wantOK(t, e.Call(bg, ToolUse{ID: "toolu_ab2", Name: "a.b", Input: []byte(`{}`)}), "dotted")
}

func TestIsIdempotentMustBeABoolean(t *testing.T) {
	_, diags := loadLua(t, luaSource(`isIdempotent = function() return true end,`))
	if _, ok := findDiag(diags, SeverityError, "isIdempotent must be a boolean"); !ok {
		t.Errorf("no error for a function isIdempotent:\n%s", diagText(diags))
	}
}
