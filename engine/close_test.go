package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
		e, err := New(Options{Tools: []ToolDef{big}, ResultsDir: dir, Cwd: t.TempDir(), Mode: ModeBypassPermissions})
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
