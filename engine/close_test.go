package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/luatool/luatool/engine/rules"
)

// TestCloseRemovesTheEnginesResults: results persisted in the engine's own temporary
// directory are gone after Close; a directory the host named is kept.
func TestCloseRemovesTheEnginesResults(t *testing.T) {
	big := ToolDef{
		Name: "Big", Prompt: func(context.Context, PromptOptions) (string, error) { return "p", nil },
		InputSchema: map[string]any{"type": "object"},
		Call: func(context.Context, map[string]any, *CallContext) (*ToolResult, error) {
			return &ToolResult{Data: strings.Repeat("x", DefaultMaxResultSizeChars+1)}, nil
		},
	}
	kept := t.TempDir()
	for _, dir := range []string{"", kept} {
		e, err := New(Options{Tools: []ToolDef{big}, ResultsDir: dir, Cwd: t.TempDir(), Mode: rules.ModeBypassPermissions})
		if err != nil {
			t.Fatal(err)
		}
		r := e.Call(bg, ToolUse{ID: "toolu_1", Name: "Big"})
		if r.PersistedPath == "" {
			t.Fatalf("not persisted: %s", r.Block.Content.String())
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		_, err = os.Stat(r.PersistedPath)
		switch {
		case dir == "" && !os.IsNotExist(err):
			t.Errorf("the engine's own results survive Close: %s (%v)", r.PersistedPath, err)
		case dir != "" && err != nil:
			t.Errorf("the host's results directory lost %s: %v", r.PersistedPath, err)
		case dir != "" && filepath.Dir(r.PersistedPath) != kept:
			t.Errorf("persisted to %s, want %s", r.PersistedPath, kept)
		}
	}
}

// TestCloseEndsWhatCallsStarted: what a call registered with OnClose (or the
// engine's Closer) runs at Close, once, and before Close returns, unless it was
// cancelled; each call sees its principal's session key. A CallContext no engine
// made cannot register.
func TestCloseEndsWhatCallsStarted(t *testing.T) {
	var mu sync.Mutex // Close runs the closers side by side
	ended := map[string]int{}
	var cancels = map[string]func(){}
	start := ToolDef{
		Name: "Start", Prompt: func(context.Context, PromptOptions) (string, error) { return "p", nil },
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}},
		Call: func(_ context.Context, in map[string]any, cc *CallContext) (*ToolResult, error) {
			name := in["name"].(string)
			register := cc.OnClose
			if name == "closer" {
				register = cc.Closer()
			}
			cancels[name] = register(func() {
				mu.Lock()
				ended[name]++
				mu.Unlock()
			})
			return &ToolResult{Data: cc.Session}, nil
		},
	}
	e, err := New(Options{Tools: []ToolDef{start}, Cwd: t.TempDir(), Mode: rules.ModeBypassPermissions})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"kept", "cancelled", "closer"} {
		ctx := WithPrincipal(bg, Principal{Name: "ann", Session: name})
		r := e.Call(ctx, ToolUse{ID: "toolu_" + name, Name: "Start", Input: []byte(`{"name":"` + name + `"}`)})
		if r.Block.IsError || r.Block.Content.String() != "ann/"+name {
			t.Fatalf("%s: %s", name, r.Block.Content.String())
		}
	}
	cancels["cancelled"]()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if ended["kept"] != 1 || ended["closer"] != 1 || ended["cancelled"] != 0 {
		t.Errorf("ended %v, want kept and closer once and cancelled never", ended)
	}
	if (&CallContext{}).OnClose(func() {}) != nil || (&CallContext{}).Closer()(func() {}) != nil {
		t.Error("a CallContext no engine made registered a closer")
	}
}
