package luaload

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/rules"
)

// TestLuaSafetyCheck: checkPermissions's decisionReason of type "safetyCheck", with
// behavior "ask", is the engine's safety check (PermissionResult.SafetyCheck); any
// other shape denies the call with an error that names decisionReason, so that a
// misspelt safety check never fails open.
func TestLuaSafetyCheck(t *testing.T) {
	for _, tc := range []struct {
		name, ret string
		want      string // the SafetyCheck of an ask; "" for a deny naming decisionReason
	}{
		{"the original's shape", `{behavior = "ask", message = "m", decisionReason = {type = "safetyCheck", reason = "writes .git/config", classifierApprovable = false}}`, "writes .git/config"},
		{"another type", `{behavior = "ask", decisionReason = {type = "other", reason = "r"}}`, ""},
		{"a misspelt type", `{behavior = "ask", decisionReason = {type = "safetycheck", reason = "r"}}`, ""},
		{"no reason", `{behavior = "ask", decisionReason = {type = "safetyCheck"}}`, ""},
		{"a blank reason", `{behavior = "ask", decisionReason = {type = "safetyCheck", reason = " "}}`, ""},
		{"with allow", `{behavior = "allow", decisionReason = {type = "safetyCheck", reason = "r"}}`, ""},
		{"an unknown field", `{behavior = "ask", decisionReason = {type = "safetyCheck", reason = "r", rule = "x"}}`, ""},
		{"not a table", `{behavior = "ask", decisionReason = "safetyCheck"}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tool := mustLoad(t, luaSource(`checkPermissions = function() return `+tc.ret+` end,`))
			p := tool.CheckPermissions(bg, input, &engine.CallContext{})
			if tc.want != "" {
				if p.Behavior != rules.Ask || p.SafetyCheck != tc.want || p.Message != "m" {
					t.Errorf("CheckPermissions = %+v, want an ask with the safety check %q", p, tc.want)
				}
				return
			}
			if p.Behavior != rules.Deny || !strings.Contains(p.Message, "decisionReason must be") {
				t.Errorf("CheckPermissions = %+v, want a deny naming decisionReason", p)
			}
		})
	}
}

// TestLuaCtxProtected: ctx:protected and ctx:protectedWithin give the engine's
// reason for a protected path (a name, a tool directory the engine loads) and nil
// for another; a relative path is an argument error.
func TestLuaCtxProtected(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	tools := filepath.Join(root, "tools")
	if err := os.MkdirAll(filepath.Join(root, "clean"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(tools, 0o755); err != nil {
		t.Fatal(err)
	}
	src := luaSourceWith(`name = "Probe",`, memberPrompt, `inputSchema = {type = "object", properties = {path = {type = "string"}, within = {type = "boolean"}}},`,
		`isReadOnly = true,`,
		`call = function(input, ctx)
    if input.within then return ctx:protectedWithin(input.path) or "nil" end
    return ctx:protected(input.path) or "nil"
  end,`)
	if err := os.WriteFile(filepath.Join(tools, "probe.lua"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	e := newTestEngine(t, engine.Options{Cwd: root})
	if diags := e.Load(engine.DirSource(tools)); diag.HasErrors(diags) {
		t.Fatal(diagText(diags))
	}
	call := func(path string, within bool) string {
		in, _ := json.Marshal(map[string]any{"path": path, "within": within})
		return e.Call(bg, engine.ToolUse{ID: "1", Name: "Probe", Input: in}).Block.Content.String()
	}
	for _, tc := range []struct {
		path   string
		within bool
		want   string
	}{
		{filepath.Join(root, ".git", "config"), false, "core.fsmonitor"},
		{filepath.Join(tools, "new.lua"), false, "a directory luatool loads tools from"},
		{filepath.Join(root, "main.go"), false, "nil"},
		{root, true, "inside it, is a directory luatool loads tools from"},
		{filepath.Join(root, "clean"), true, "nil"},
		{"relative/path", false, "absolute path expected"},
	} {
		if got := call(tc.path, tc.within); !strings.Contains(got, tc.want) {
			t.Errorf("%s (within %v): %q, want %q", tc.path, tc.within, got, tc.want)
		}
	}
}
