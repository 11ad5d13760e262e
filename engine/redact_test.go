package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/luatool/luatool/engine/env"
	"github.com/luatool/luatool/engine/rules"
)

// Content's text blocks are redacted, its image data left alone.
func TestRedactContent(t *testing.T) {
	values, err := env.New([]env.Var{{Name: "KEY", Value: "sk-0123456789", Secret: true}})
	if err != nil {
		t.Fatal(err)
	}
	c := redactContent(values.Redactor(), Content{{Type: "text", Text: "x sk-0123456789"}, {Type: "image", Source: map[string]any{"data": "sk-0123456789"}}})
	if c[0].Text != "x [redacted:KEY]" || c[1].Source["data"] != "sk-0123456789" {
		t.Errorf("Content: %+v", c)
	}
}

// The engine redacts a secret from everything a call hands on: the content (also
// when it is persisted), the data, the log, progress, the error and the engine's
// log, the renderings, the description and the message of a permission ask.
func TestPipelineRedactsSecrets(t *testing.T) {
	const key = "sk-0123456789"
	values, err := env.New([]env.Var{{Name: "KEY", Value: key, Secret: true}})
	if err != nil {
		t.Fatal(err)
	}
	var logged bytes.Buffer
	var progress []any
	var askMessage, askDescription string
	leaky := ToolDef{
		Name: "Leaky", InputSchema: objectSchema(nil),
		Prompt: func(context.Context, PromptOptions) (string, error) { return "uses " + key, nil },
		Description: func(context.Context, map[string]any) (string, error) {
			return "calls with " + key, nil
		},
		RenderToolUseMessage: func(context.Context, map[string]any) (string, error) { return "Leaky(" + key + ")", nil },
		UserFacingName:       func(context.Context, map[string]any) (string, error) { return "", errors.New("name of " + key) },
		CheckPermissions: func(context.Context, map[string]any, *CallContext) (PermissionResult, error) {
			return PermissionResult{Behavior: rules.Ask, Message: "may send " + key}, nil
		},
		Call: func(_ context.Context, in map[string]any, cc *CallContext) (*ToolResult, error) {
			cc.Log("sending " + key)
			cc.Progress(map[string]any{"message": key})
			switch in["mode"] {
			case "fail":
				return nil, errors.New("request with " + key + " failed")
			case "big":
				return &ToolResult{Data: strings.Repeat("x", 60000) + key}, nil
			}
			return &ToolResult{Data: map[string]any{"key": key}, NewMessages: []any{key}, MCPMeta: map[string]any{"k": key}}, nil
		},
	}
	e := newTestEngine(t, Options{
		Tools: []ToolDef{leaky}, Env: values,
		Logger:     slog.New(slog.NewTextHandler(&logged, nil)),
		OnProgress: func(ev ProgressEvent) { progress = append(progress, ev.Data) },
		CanUseTool: func(_ context.Context, req PermissionRequest) (PermissionDecision, error) {
			askMessage, askDescription = req.Message, req.Description
			return PermissionDecision{Behavior: rules.Allow}, nil
		},
	})
	tool, _ := e.Registry().Lookup("Leaky")

	r := e.Call(bg, ToolUse{ID: "toolu_1", Name: "Leaky", Input: []byte(`{}`)})
	if name := tool.UserFacingName(bg, nil); name != "Leaky" {
		t.Errorf("user-facing name %q, want the fallback", name)
	}
	checks := map[string]any{
		"content": r.Block.Content.String(), "data": r.Data, "log": r.Log, "newMessages": r.NewMessages,
		"mcpMeta": r.MCPMeta, "progress": progress, "ask message": askMessage, "ask description": askDescription,
		"render": tool.RenderToolUse(bg, nil), "user-facing name failure (engine log)": logged.String(),
	}
	prompt, _ := tool.Prompt(bg, PromptOptions{})
	checks["prompt"] = prompt

	failed := e.Call(bg, ToolUse{ID: "toolu_2", Name: "Leaky", Input: []byte(`{"mode": "fail"}`)})
	checks["error content"], checks["Result.Err"] = failed.Block.Content.String(), failed.Err.Error()
	checks["rendered error"] = tool.RenderError(bg, "request with "+key+" failed")

	big := e.Call(bg, ToolUse{ID: "toolu_3", Name: "Leaky", Input: []byte(`{"mode": "big"}`)})
	persisted, err := os.ReadFile(big.PersistedPath)
	if err != nil {
		t.Fatalf("the big result was not persisted: %v", err)
	}
	checks["persisted file"] = string(persisted)

	for what, v := range checks {
		text := fmt.Sprint(v)
		if strings.Contains(text, key) || !strings.Contains(text, "[redacted:KEY]") {
			if len(text) > 300 {
				text = "..." + text[len(text)-300:]
			}
			t.Errorf("%s: %s", what, text)
		}
	}
}
