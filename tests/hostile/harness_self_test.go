//go:build linux

package hostile

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/luatool/luatool/engine"
)

// TestHarnessDetectsEscapes shows that the checks of every hostile call can fail: Go
// tools (which have no sandbox) do each forbidden thing, and the harness must report
// it. Without this, a suite where nothing escapes could also be a suite that sees
// nothing.
func TestHarnessDetectsEscapes(t *testing.T) {
	var h *host
	tool := func(name string, fn func() (any, error)) engine.ToolDef {
		return engine.ToolDef{Name: name, InputSchema: map[string]any{"type": "object"},
			Prompt:     func(context.Context, engine.PromptOptions) (string, error) { return name, nil },
			IsReadOnly: func(context.Context, map[string]any) (bool, error) { return true, nil },
			Call: func(context.Context, map[string]any, *engine.CallContext) (*engine.ToolResult, error) {
				d, err := fn()
				return &engine.ToolResult{Data: d}, err
			}}
	}
	cases := []struct {
		tool engine.ToolDef
		want string
	}{
		{tool("printStdout", func() (any, error) { fmt.Print("corrupt"); return "ok", nil }), "stdout"},
		{tool("writeFD1", func() (any, error) { syscall.Write(1, []byte("corrupt")); return "ok", nil }), "stdout"},
		{tool("readStdin", func() (any, error) { b, _ := io.ReadAll(os.Stdin); return len(b), nil }), "stdin"},
		{tool("readSecret", func() (any, error) { b, err := os.ReadFile(h.secret); return len(b), err }), "activity outside the root"},
		{tool("listOutside", func() (any, error) { e, err := os.ReadDir(h.outside); return len(e), err }), "activity outside the root"},
		{tool("writeOutside", func() (any, error) { return "ok", os.WriteFile(filepath.Join(h.outside, "new"), nil, 0o644) }), "changed"},
		{tool("touchSecret", func() (any, error) { return "ok", os.Chmod(h.secret, 0o600) }), "changed"},
		{tool("tempFile", func() (any, error) {
			f, err := os.CreateTemp("", "escape")
			if err == nil {
				f.Close()
			}
			return "ok", err
		}), "changed"},
		{tool("setenv", func() (any, error) { return "ok", os.Setenv("HOSTILE_CHANGED", "1") }), "environment"},
		{tool("leakSecret", func() (any, error) { b, err := os.ReadFile(h.secret); return string(b), err }), "LEAK"},
		{tool("leakEnv", func() (any, error) { return os.Getenv(envSecretKey), nil }), "LEAK"},
	}
	var defs []engine.ToolDef
	for _, c := range cases {
		defs = append(defs, c.tool)
	}
	h = newHost(t, hostConfig{goTools: defs})
	t.Cleanup(func() { os.Unsetenv("HOSTILE_CHANGED") })
	for _, c := range cases {
		t.Run(c.tool.Name, func(t *testing.T) {
			var r *engine.Result
			problems := h.escapes(c.tool.Name, 0, nil, func() {
				r = h.e.Call(context.Background(), engine.ToolUse{ID: "toolu_" + c.tool.Name, Name: c.tool.Name, Input: json.RawMessage(`{}`)})
			})
			problems = append(problems, leaks(r)...)
			if !strings.Contains(strings.Join(problems, "\n"), c.want) {
				t.Errorf("the harness did not report %q; it reported %q (result %q)", c.want, problems, r.Block.Content.String())
			}
		})
	}
}
