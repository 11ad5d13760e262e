package engine

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/luatool/luatool/engine/rules"
)

func TestWithCallbacksOverrideTheEngineOptions(t *testing.T) {
	var engineAsked, engineProgress int
	e, _ := pipelineEngine(t, Options{
		CanUseTool: func(context.Context, PermissionRequest) (PermissionDecision, error) {
			engineAsked++
			return PermissionDecision{Behavior: rules.Deny}, nil
		},
		OnProgress: func(ProgressEvent) { engineProgress++ },
	})
	var mu sync.Mutex
	var progress []ProgressEvent
	ctx := WithCallbacks(bg, Callbacks{
		CanUseTool: func(context.Context, PermissionRequest) (PermissionDecision, error) {
			return PermissionDecision{Behavior: rules.Allow}, nil
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
	r := e.Call(WithCallbacks(bg, Callbacks{}), ToolUse{ID: "toolu_h3", Name: "Guard", Input: []byte(`{"path":"/tmp/a"}`)})
	if !r.Block.IsError || engineAsked != 1 {
		t.Errorf("with empty hooks: %q, engine asked %d times", r.Block.Content.String(), engineAsked)
	}
}

// TestDefinitions: what a model is told of each tool, from its members; a tool whose
// prompt fails is left out, with an error naming it. TestLuaPlainValuesAreHints checks
// the hints a Lua tool's members give.
func TestDefinitions(t *testing.T) {
	yes, no := true, false
	status := ToolDef{
		Name:           "git.status",
		Prompt:         func(context.Context, PromptOptions) (string, error) { return "p", nil },
		UserFacingName: func(context.Context, map[string]any) (string, error) { return "Git status", nil },
		InputSchema:    objectSchema(nil),
		OutputSchema:   map[string]any{"type": "string"},
		SearchHint:     "working tree status",
		ShouldDefer:    true,
		Hints:          Hints{ReadOnly: &yes, Idempotent: &yes, OpenWorld: &no},
		IsDestructive:  func(context.Context, map[string]any) (bool, error) { return false, nil },
		Call:           func(context.Context, map[string]any, *CallContext) (*ToolResult, error) { return data("clean") },
	}
	e := newTestEngine(t, Options{Tools: []ToolDef{{
		Name: "Broken", InputSchema: map[string]any{"type": "object"},
		Prompt: func(context.Context, PromptOptions) (string, error) { return "", errors.New("no prompt today") },
		Call:   func(context.Context, map[string]any, *CallContext) (*ToolResult, error) { return nil, nil },
	}, status}})
	defs, err := e.Definitions(bg)
	if err == nil || !strings.Contains(err.Error(), "Broken (go:Broken): prompt: no prompt today") {
		t.Errorf("error = %v, want one naming Broken", err)
	}
	if len(defs) != 1 {
		t.Fatalf("definitions = %+v, want git.status only", defs)
	}
	d := defs[0]
	if d.Name != "git.status" || d.Title != "Git status" || d.Description != "p" || d.SearchHint != "working tree status" ||
		!d.Deferred || d.Announced || d.AlwaysLoad || d.OutputSchema["type"] != "string" || d.InputSchema["type"] != "object" {
		t.Errorf("definition = %+v", d)
	}
	// The hints are the declared ones; a function answers per input and is none.
	if d.Hints.ReadOnly == nil || !*d.Hints.ReadOnly || d.Hints.Destructive != nil || d.Hints.OpenWorld == nil || *d.Hints.OpenWorld ||
		d.Hints.Idempotent == nil || !*d.Hints.Idempotent || d.Hints.ConcurrencySafe != nil {
		t.Errorf("hints = %+v", d.Hints)
	}
	e.Discover(bg, "git.status")
	if defs, _ := e.Definitions(bg); !defs[0].Announced {
		t.Error("a discovered tool is not announced")
	}
	// The tool is found under its API name too.
	if tool, ok := e.Registry().Lookup("git_status"); !ok || tool.Name() != "git.status" {
		t.Errorf("Lookup(git_status) = %v, %v", tool, ok)
	}
}

func TestAPINameDoesNotShadowATool(t *testing.T) {
	answer := func(name, text string) ToolDef {
		return readOnlyTool(name, objectSchema(nil), func(map[string]any, *CallContext) (*ToolResult, error) { return data(text) })
	}
	e := newTestEngine(t, Options{Tools: []ToolDef{answer("a.b", "dotted"), answer("a_b", "underscored")}})
	wantOK(t, e.Call(bg, ToolUse{ID: "toolu_ab", Name: "a_b", Input: []byte(`{}`)}), "underscored")
	wantOK(t, e.Call(bg, ToolUse{ID: "toolu_ab2", Name: "a.b", Input: []byte(`{}`)}), "dotted")
}
