package engine

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/luatool/luatool/engine/rules"
)

// nestingTool is a Go tool whose call makes a nested call of the tool named by its
// input's "next" (none when empty) and returns that call's text, or "leaf".
func nestingTool(name string, readOnly bool) ToolDef {
	return ToolDef{
		Name:        name,
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{"next": map[string]any{"type": "string"}, "then": map[string]any{"type": "string"}}},
		Prompt:      func(context.Context, PromptOptions) (string, error) { return name, nil },
		IsReadOnly:  func(context.Context, map[string]any) (bool, error) { return readOnly, nil },
		Call: func(ctx context.Context, input map[string]any, cc *CallContext) (*ToolResult, error) {
			next, _ := input["next"].(string)
			if next == "" {
				return &ToolResult{Data: "leaf " + cc.ToolUseID}, nil
			}
			then, _ := input["then"].(string)
			in, _ := json.Marshal(map[string]any{"next": then})
			r := cc.CallTool(ctx, next, in)
			return &ToolResult{Data: string(r.Stage) + ": " + r.Block.Content.String()}, nil
		},
	}
}

func TestCallToolRunsThroughThePipeline(t *testing.T) {
	var asked []string
	e := newTestEngine(t, Options{
		Tools: []ToolDef{nestingTool("Outer", true), nestingTool("Middle", true), nestingTool("Writer", false)},
		CanUseTool: func(_ context.Context, req PermissionRequest) (PermissionDecision, error) {
			asked = append(asked, req.Tool.Name()+" "+req.ToolUseID)
			return PermissionDecision{Behavior: rules.Deny}, nil
		},
	})
	for _, c := range []struct{ input, want string }{
		// A nested call gets a derived id.
		{`{"next": "Middle"}`, "done: leaf toolu_1.1"},
		// Nested calls do not nest.
		{`{"next": "Middle", "then": "Writer"}`, "done: lookup: <tool_use_error>Error: Writer cannot be called from inside Middle: a nested call cannot make calls of its own</tool_use_error>"},
		// A tool cannot call itself.
		{`{"next": "Outer"}`, "lookup: <tool_use_error>Error: Outer cannot call itself</tool_use_error>"},
		// The permission step runs: the ask goes to the same CanUseTool.
		{`{"next": "Writer"}`, "permission: Permission to use Writer has been denied."},
	} {
		r := e.Call(context.Background(), ToolUse{ID: "toolu_1", Name: "Outer", Input: json.RawMessage(c.input)})
		if got := r.Block.Content.String(); r.Block.IsError || got != c.want {
			t.Errorf("Outer %s = %q, want %q", c.input, r.Block.Content.String(), c.want)
		}
	}
	if len(asked) != 1 || asked[0] != "Writer toolu_1.1" {
		t.Fatalf("asks = %q, want one for Writer toolu_1.1", asked)
	}
	// A CallContext no engine made refuses.
	var cc CallContext
	if r := cc.CallTool(context.Background(), "Outer", nil); !r.Block.IsError || r.Stage != StageLookup {
		t.Fatalf("CallTool without an engine = %+v", r)
	}
}
