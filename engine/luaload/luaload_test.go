package luaload

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/rules"
)

// The tool sources below are built around these members. Line 1 is "return {", the
// members below are lines 2 to 5 and the test's own members start at line 6.
const (
	memberName   = `name = "T",`
	memberPrompt = `prompt = "p",`
	memberSchema = `inputSchema = {type = "object", properties = {path = {type = "string"}}},`
	memberCall   = `call = function(input, ctx) return "ok" end,`
	extraLine    = 6
)

// luaSource returns a tool file with the four required members and extra.
func luaSource(extra string) string {
	return luaSourceWith(memberName, memberPrompt, memberSchema, memberCall, extra)
}

// luaSourceWith returns a tool file made of the given member lines.
func luaSourceWith(lines ...string) string {
	return "return {\n  " + strings.Join(lines, "\n  ") + "\n}\n"
}

// newTestEngine returns an engine with a Lua loader of lopts (the zero Options when
// none is given).
func newTestEngine(t *testing.T, opts engine.Options, lopts ...Options) *engine.Engine {
	t.Helper()
	if opts.Cwd == "" {
		opts.Cwd = t.TempDir()
	}
	if opts.ResultsDir == "" {
		opts.ResultsDir = t.TempDir()
	}
	var lo Options
	if len(lopts) > 0 {
		lo = lopts[0]
	}
	opts.Loaders = append(opts.Loaders, New(lo))
	e, err := engine.New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return e
}

// loadLua loads src as t.lua with a Lua loader and builds it, as the engine does.
func loadLua(t *testing.T, src string) (*engine.Tool, []diag.Diagnostic) {
	t.Helper()
	return loadLuaWith(t, Options{}, src)
}

// loadLuaWith is loadLua with the loader's options: the file is loaded by an engine,
// so that the diagnostics are the engine's (Build's problems at the member's line,
// the warnings about schemas and API names). A tool the registry does not offer
// (isEnabled said no) is built directly from the loader's definition.
func loadLuaWith(t *testing.T, opts Options, src string) (*engine.Tool, []diag.Diagnostic) {
	t.Helper()
	e := newTestEngine(t, engine.Options{}, opts)
	diags := e.Load(engine.Source{FS: fstest.MapFS{"t.lua": {Data: []byte(src)}}})
	var kept []diag.Diagnostic
	for _, d := range diags {
		if !strings.Contains(d.Message, "is hidden: isEnabled") {
			kept = append(kept, d)
		}
	}
	if diag.HasErrors(kept) {
		return nil, kept
	}
	for _, tool := range e.Registry().Tools() {
		if tool.Source() == "t.lua" {
			return tool, kept
		}
	}
	def, _ := New(opts).Load("t.lua", []byte(src), engine.LoadEnv{})
	tool, err := engine.Build(def)
	if err != nil {
		t.Fatalf("a definition that loaded does not build: %v", err)
	}
	t.Cleanup(def.Close)
	return tool, kept
}

// mustLoad loads src and fails the test on any error diagnostic.
func mustLoad(t *testing.T, src string) *engine.Tool {
	t.Helper()
	tool, diags := loadLua(t, src)
	if tool == nil || diag.HasErrors(diags) {
		t.Fatalf("loading failed:\n%s\nsource:\n%s", diagText(diags), src)
	}
	return tool
}

func diagText(diags []diag.Diagnostic) string {
	var lines []string
	for _, d := range diags {
		lines = append(lines, d.String())
	}
	return strings.Join(lines, "\n")
}

// findDiag returns the first diagnostic of severity sev whose message contains msg.
func findDiag(diags []diag.Diagnostic, sev diag.Severity, msg string) (diag.Diagnostic, bool) {
	for _, d := range diags {
		if d.Severity == sev && strings.Contains(d.Message, msg) {
			return d, true
		}
	}
	return diag.Diagnostic{}, false
}

// writeDir writes files into a new temporary directory and returns it.
func writeDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

var (
	bg    = context.Background()
	input = map[string]any{"path": "a"}
)

// TestLuaDefaultsWhenAbsent checks the "default when absent" column for a tool that
// declares only the required members.
func TestLuaDefaultsWhenAbsent(t *testing.T) {
	tool := mustLoad(t, luaSource(""))
	checks := []struct {
		member string
		got    any
		want   any
	}{
		{"description", tool.Description(bg, input), "T"},
		{"userFacingName", tool.UserFacingName(bg, input), "T"},
		{"isEnabled", tool.IsEnabled(bg), true},
		{"isReadOnly", tool.IsReadOnly(bg, input), false},
		{"isConcurrencySafe", tool.IsConcurrencySafe(bg, input), false},
		{"isDestructive", tool.IsDestructive(bg, input), false},
		{"isOpenWorld", tool.IsOpenWorld(bg, input), false},
		{"interruptBehavior", tool.InterruptBehavior(bg), "block"},
		{"validateInput", tool.ValidateInput(bg, input, &engine.CallContext{}).Valid, true},
		{"checkPermissions", tool.CheckPermissions(bg, input, &engine.CallContext{}).Behavior, rules.Ask},
		{"toAutoClassifierInput", tool.ToAutoClassifierInput(bg, input), ""},
		{"maxResultSizeChars", tool.MaxResultSizeChars(), float64(engine.DefaultMaxResultSizeChars)},
		{"aliases", len(tool.Aliases()), 0},
		{"searchHint", tool.SearchHint(), ""},
		{"shouldDefer", tool.Deferred(), false},
		{"outputSchema", tool.OutputSchema() == nil, true},
		{"renderToolUseMessage", tool.RenderToolUse(bg, input), `T(path: "a")`},
		{"renderToolResultMessage", tool.RenderResult(bg, "data"), ""},
		{"renderToolUseProgressMessage", tool.RenderProgress(bg, "working"), "working"},
		{"renderToolUseProgressMessage (table)", tool.RenderProgress(bg, map[string]any{"n": 1.0, "a": true}), "working"},
		{"renderToolUseRejectedMessage", tool.RenderRejected(bg, input), "T was not allowed to run"},
		{"renderToolUseErrorMessage", tool.RenderError(bg, "boom"), "Error: boom"},
		{"source", tool.Source(), "t.lua"},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s absent: got %#v, want %#v", c.member, c.got, c.want)
		}
	}
	if _, ok := tool.GetPath(bg, input); ok {
		t.Error("getPath absent: ok = true, want false")
	}
	if _, ok := tool.RuleContent(bg, input); ok {
		t.Error("ruleContent absent: ok = true, want false")
	}
	if p := tool.CheckPermissions(bg, input, &engine.CallContext{}); p.Message == "" {
		t.Error("the default ask has no message")
	}
	if s, err := tool.Prompt(bg, engine.PromptOptions{}); err != nil || s != "p" {
		t.Errorf("prompt = %q, %v", s, err)
	}
}

func TestLuaDefaultMapResult(t *testing.T) {
	tool := mustLoad(t, luaSource(""))
	tests := []struct {
		data any
		want string
	}{
		{"plain text", "plain text"},
		{"", ""},
		{3.0, "3"},
		{true, "true"},
		{[]any{}, "[]"},
		{map[string]any{}, "{}"},
		{map[string]any{"b": 1.0, "a": []any{2.0, map[string]any{"z": nil, "y": "<y>"}}}, `{"a":[2,{"y":"<y>","z":null}],"b":1}`},
	}
	for _, tt := range tests {
		c, err := tool.MapResult(bg, tt.data, "id")
		if err != nil {
			t.Errorf("MapResult(%#v): %v", tt.data, err)
			continue
		}
		if c.String() != tt.want {
			t.Errorf("MapResult(%#v) = %q, want %q", tt.data, c.String(), tt.want)
		}
	}
	if c, err := tool.MapResult(bg, nil, "id"); err != nil || len(c) != 0 {
		t.Errorf("MapResult(nil) = %#v, %v; want no content", c, err)
	}
	if _, err := tool.MapResult(bg, math.NaN(), "id"); err == nil {
		t.Error("MapResult(NaN) succeeded")
	}
}

// A row of the defaults table exercised with a member the script defines.
type memberCase struct {
	name  string
	extra string
	check func(t *testing.T, tool *engine.Tool)
}

func runMemberCases(t *testing.T, cases []memberCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tool, diags := loadLua(t, luaSource(c.extra))
			if tool == nil || diag.HasErrors(diags) {
				t.Fatalf("load failed:\n%s", diagText(diags))
			}
			c.check(t, tool)
		})
	}
}

func wantString(got, want string) func(t *testing.T) {
	return func(t *testing.T) {
		t.Helper()
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

func wantBool(t *testing.T, what string, got, want bool) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// TestLuaMembersThatError checks the "on error" column: every member function that
// raises an error gives the fail-closed answer.
func TestLuaMembersThatError(t *testing.T) {
	runMemberCases(t, []memberCase{
		{"description", `description = function() error("x") end,`, func(t *testing.T, tool *engine.Tool) {
			wantString(tool.Description(bg, input), "T")(t)
		}},
		{"userFacingName", `userFacingName = function() error("x") end,`, func(t *testing.T, tool *engine.Tool) {
			wantString(tool.UserFacingName(bg, input), "T")(t)
		}},
		{"isEnabled", `isEnabled = function() error("x") end,`, func(t *testing.T, tool *engine.Tool) {
			wantBool(t, "IsEnabled", tool.IsEnabled(bg), false)
		}},
		{"isReadOnly", `isReadOnly = function() error("x") end,`, func(t *testing.T, tool *engine.Tool) {
			wantBool(t, "IsReadOnly", tool.IsReadOnly(bg, input), false)
			if p := tool.CheckPermissions(bg, input, &engine.CallContext{}); p.Behavior != rules.Ask {
				t.Errorf("default checkPermissions with a failing isReadOnly = %s, want ask", p.Behavior)
			}
		}},
		{"isConcurrencySafe", `isConcurrencySafe = function() error("x") end,`, func(t *testing.T, tool *engine.Tool) {
			wantBool(t, "IsConcurrencySafe", tool.IsConcurrencySafe(bg, input), false)
		}},
		{"isDestructive", `isDestructive = function() error("x") end,`, func(t *testing.T, tool *engine.Tool) {
			wantBool(t, "IsDestructive", tool.IsDestructive(bg, input), true)
		}},
		{"isOpenWorld", `isOpenWorld = function() error("x") end,`, func(t *testing.T, tool *engine.Tool) {
			wantBool(t, "IsOpenWorld", tool.IsOpenWorld(bg, input), true)
		}},
		{"interruptBehavior", `interruptBehavior = function() error("x") end,`, func(t *testing.T, tool *engine.Tool) {
			wantString(tool.InterruptBehavior(bg), "block")(t)
		}},
		{"validateInput", `validateInput = function() error("the disk is gone") end,`, func(t *testing.T, tool *engine.Tool) {
			v := tool.ValidateInput(bg, input, &engine.CallContext{})
			if v.Valid || v.Message != "validateInput failed: the disk is gone" {
				t.Errorf("ValidateInput = %+v, want invalid with the error text without its position", v)
			}
		}},
		{"checkPermissions", `checkPermissions = function() error("no idea") end,`, func(t *testing.T, tool *engine.Tool) {
			p := tool.CheckPermissions(bg, input, &engine.CallContext{})
			if p.Behavior != rules.Deny || !strings.Contains(p.Message, "no idea") {
				t.Errorf("CheckPermissions = %+v, want deny with the error", p)
			}
		}},
		{"checkPermissions on a read-only tool", `isReadOnly = true, checkPermissions = function() error("no idea") end,`, func(t *testing.T, tool *engine.Tool) {
			if p := tool.CheckPermissions(bg, input, &engine.CallContext{}); p.Behavior != rules.Deny {
				t.Errorf("CheckPermissions = %+v, want deny", p)
			}
		}},
		{"getPath", `getPath = function() error("x") end,`, func(t *testing.T, tool *engine.Tool) {
			if _, ok := tool.GetPath(bg, input); ok {
				t.Error("GetPath ok = true")
			}
		}},
		{"ruleContent", `ruleContent = function() error("x") end,`, func(t *testing.T, tool *engine.Tool) {
			if _, ok := tool.RuleContent(bg, input); ok {
				t.Error("RuleContent ok = true")
			}
		}},
		{"toAutoClassifierInput", `toAutoClassifierInput = function() error("x") end,`, func(t *testing.T, tool *engine.Tool) {
			wantString(tool.ToAutoClassifierInput(bg, input), "")(t)
		}},
		{"mapResult", `mapResult = function() error("cannot map") end,`, func(t *testing.T, tool *engine.Tool) {
			_, err := tool.MapResult(bg, "x", "id")
			if err == nil || !strings.Contains(err.Error(), "t.lua:6: cannot map") {
				t.Errorf("MapResult error = %v, want the error with its position", err)
			}
		}},
		{"renderToolUseMessage", `renderToolUseMessage = function() error("x") end,`, func(t *testing.T, tool *engine.Tool) {
			wantString(tool.RenderToolUse(bg, input), `T(path: "a")`)(t)
		}},
		{"renderToolResultMessage", `renderToolResultMessage = function() error("x") end,`, func(t *testing.T, tool *engine.Tool) {
			wantString(tool.RenderResult(bg, "d"), "")(t)
		}},
		{"renderToolUseProgressMessage", `renderToolUseProgressMessage = function() error("x") end,`, func(t *testing.T, tool *engine.Tool) {
			wantString(tool.RenderProgress(bg, "50%"), "50%")(t)
		}},
		{"renderToolUseRejectedMessage", `renderToolUseRejectedMessage = function() error("x") end,`, func(t *testing.T, tool *engine.Tool) {
			wantString(tool.RenderRejected(bg, input), "T was not allowed to run")(t)
		}},
		{"renderToolUseErrorMessage", `renderToolUseErrorMessage = function() error("x") end,`, func(t *testing.T, tool *engine.Tool) {
			wantString(tool.RenderError(bg, "boom"), "Error: boom")(t)
		}},
	})
}

func TestLuaPromptThatErrorsIsACallError(t *testing.T) {
	for _, prompt := range []string{
		`prompt = function() error("no prompt today") end,`,
		`prompt = function() return 5 end,`,
		`prompt = function() return nil end,`,
	} {
		tool, diags := loadLua(t, luaSourceWith(memberName, prompt, memberSchema, memberCall))
		if tool == nil {
			t.Fatalf("%s: load failed:\n%s", prompt, diagText(diags))
		}
		if s, err := tool.Prompt(bg, engine.PromptOptions{}); err == nil {
			t.Errorf("%s: Prompt = %q, want an error", prompt, s)
		}
	}
}

// TestLuaFunctionsReturningTheWrongType checks that a member function returning a
// value of the wrong type gets the same fail-closed answer as one that errors.
func TestLuaFunctionsReturningTheWrongType(t *testing.T) {
	runMemberCases(t, []memberCase{
		{"description", `description = function() return 5 end,`, func(t *testing.T, tool *engine.Tool) {
			wantString(tool.Description(bg, input), "T")(t)
		}},
		{"userFacingName", `userFacingName = function() return {} end,`, func(t *testing.T, tool *engine.Tool) {
			wantString(tool.UserFacingName(bg, input), "T")(t)
		}},
		{"isEnabled", `isEnabled = function() return "yes" end,`, func(t *testing.T, tool *engine.Tool) {
			wantBool(t, "IsEnabled", tool.IsEnabled(bg), false)
		}},
		{"isEnabled nil", `isEnabled = function() end,`, func(t *testing.T, tool *engine.Tool) {
			wantBool(t, "IsEnabled", tool.IsEnabled(bg), false)
		}},
		{"isReadOnly", `isReadOnly = function() return "yes" end,`, func(t *testing.T, tool *engine.Tool) {
			wantBool(t, "IsReadOnly", tool.IsReadOnly(bg, input), false)
		}},
		{"isReadOnly truthy number", `isReadOnly = function() return 1 end,`, func(t *testing.T, tool *engine.Tool) {
			wantBool(t, "IsReadOnly", tool.IsReadOnly(bg, input), false)
		}},
		{"isConcurrencySafe", `isConcurrencySafe = function() return "true" end,`, func(t *testing.T, tool *engine.Tool) {
			wantBool(t, "IsConcurrencySafe", tool.IsConcurrencySafe(bg, input), false)
		}},
		{"isDestructive", `isDestructive = function() return nil end,`, func(t *testing.T, tool *engine.Tool) {
			wantBool(t, "IsDestructive", tool.IsDestructive(bg, input), true)
		}},
		{"isOpenWorld", `isOpenWorld = function() return "no" end,`, func(t *testing.T, tool *engine.Tool) {
			wantBool(t, "IsOpenWorld", tool.IsOpenWorld(bg, input), true)
		}},
		{"interruptBehavior number", `interruptBehavior = function() return 5 end,`, func(t *testing.T, tool *engine.Tool) {
			wantString(tool.InterruptBehavior(bg), "block")(t)
		}},
		{"interruptBehavior unknown", `interruptBehavior = function() return "sideways" end,`, func(t *testing.T, tool *engine.Tool) {
			wantString(tool.InterruptBehavior(bg), "block")(t)
		}},
		{"validateInput string", `validateInput = function() return "yes" end,`, func(t *testing.T, tool *engine.Tool) {
			wantBool(t, "Valid", tool.ValidateInput(bg, input, &engine.CallContext{}).Valid, false)
		}},
		{"validateInput nil", `validateInput = function() end,`, func(t *testing.T, tool *engine.Tool) {
			wantBool(t, "Valid", tool.ValidateInput(bg, input, &engine.CallContext{}).Valid, false)
		}},
		{"validateInput bad result field", `validateInput = function() return {result = "no"} end,`, func(t *testing.T, tool *engine.Tool) {
			wantBool(t, "Valid", tool.ValidateInput(bg, input, &engine.CallContext{}).Valid, false)
		}},
		{"checkPermissions string", `checkPermissions = function() return "allow" end,`, func(t *testing.T, tool *engine.Tool) {
			if p := tool.CheckPermissions(bg, input, &engine.CallContext{}); p.Behavior != rules.Deny {
				t.Errorf("got %+v, want deny", p)
			}
		}},
		{"checkPermissions unknown behavior", `checkPermissions = function() return {behavior = "maybe"} end,`, func(t *testing.T, tool *engine.Tool) {
			if p := tool.CheckPermissions(bg, input, &engine.CallContext{}); p.Behavior != rules.Deny || !strings.Contains(p.Message, "maybe") {
				t.Errorf("got %+v, want deny naming the behavior", p)
			}
		}},
		{"checkPermissions nil", `checkPermissions = function() end,`, func(t *testing.T, tool *engine.Tool) {
			if p := tool.CheckPermissions(bg, input, &engine.CallContext{}); p.Behavior != rules.Deny {
				t.Errorf("got %+v, want deny", p)
			}
		}},
		{"checkPermissions updatedInput not an object", `checkPermissions = function() return {behavior = "allow", updatedInput = {1, 2}} end,`, func(t *testing.T, tool *engine.Tool) {
			if p := tool.CheckPermissions(bg, input, &engine.CallContext{}); p.Behavior != rules.Deny {
				t.Errorf("got %+v, want deny", p)
			}
		}},
		{"checkPermissions updatedInput a function", `checkPermissions = function() return {behavior = "allow", updatedInput = {f = print}} end,`, func(t *testing.T, tool *engine.Tool) {
			if p := tool.CheckPermissions(bg, input, &engine.CallContext{}); p.Behavior != rules.Deny {
				t.Errorf("got %+v, want deny", p)
			}
		}},
		{"toAutoClassifierInput", `toAutoClassifierInput = function() return 5 end,`, func(t *testing.T, tool *engine.Tool) {
			wantString(tool.ToAutoClassifierInput(bg, input), "")(t)
		}},
		{"getPath", `getPath = function() return {} end,`, func(t *testing.T, tool *engine.Tool) {
			if _, ok := tool.GetPath(bg, input); ok {
				t.Error("GetPath ok = true")
			}
		}},
		{"ruleContent", `ruleContent = function() return nil end,`, func(t *testing.T, tool *engine.Tool) {
			if _, ok := tool.RuleContent(bg, input); ok {
				t.Error("RuleContent ok = true")
			}
		}},
		{"mapResult number", `mapResult = function() return 5 end,`, func(t *testing.T, tool *engine.Tool) {
			if c, err := tool.MapResult(bg, "x", "id"); err == nil {
				t.Errorf("MapResult = %v, want an error", c)
			}
		}},
		{"mapResult unknown block", `mapResult = function() return {{type = "video"}} end,`, func(t *testing.T, tool *engine.Tool) {
			if c, err := tool.MapResult(bg, "x", "id"); err == nil {
				t.Errorf("MapResult = %v, want an error", c)
			}
		}},
		{"mapResult text block without text", `mapResult = function() return {{type = "text"}} end,`, func(t *testing.T, tool *engine.Tool) {
			if c, err := tool.MapResult(bg, "x", "id"); err == nil {
				t.Errorf("MapResult = %v, want an error", c)
			}
		}},
		{"renderToolUseMessage", `renderToolUseMessage = function() return 1 end,`, func(t *testing.T, tool *engine.Tool) {
			wantString(tool.RenderToolUse(bg, input), `T(path: "a")`)(t)
		}},
		{"renderToolUseErrorMessage", `renderToolUseErrorMessage = function() return {} end,`, func(t *testing.T, tool *engine.Tool) {
			wantString(tool.RenderError(bg, "boom"), "Error: boom")(t)
		}},
	})
}

// TestLuaStaticValuesOfTheWrongKindFailClosed covers members whose wrong kind the
// defaults table answers with the fail-closed value: the file loads with a warning
// at the member's line.
func TestLuaStaticValuesOfTheWrongKindFailClosed(t *testing.T) {
	tests := []struct {
		extra  string
		member string
		check  func(t *testing.T, tool *engine.Tool)
	}{
		{`description = 5,`, "description", func(t *testing.T, tool *engine.Tool) { wantString(tool.Description(bg, input), "T")(t) }},
		{`userFacingName = true,`, "userFacingName", func(t *testing.T, tool *engine.Tool) { wantString(tool.UserFacingName(bg, input), "T")(t) }},
		{`isEnabled = "yes",`, "isEnabled", func(t *testing.T, tool *engine.Tool) { wantBool(t, "IsEnabled", tool.IsEnabled(bg), false) }},
		{`isReadOnly = "yes",`, "isReadOnly", func(t *testing.T, tool *engine.Tool) { wantBool(t, "IsReadOnly", tool.IsReadOnly(bg, input), false) }},
		{`isConcurrencySafe = 1,`, "isConcurrencySafe", func(t *testing.T, tool *engine.Tool) {
			wantBool(t, "IsConcurrencySafe", tool.IsConcurrencySafe(bg, input), false)
		}},
		{`isDestructive = "no",`, "isDestructive", func(t *testing.T, tool *engine.Tool) {
			wantBool(t, "IsDestructive", tool.IsDestructive(bg, input), true)
		}},
		{`isOpenWorld = 0,`, "isOpenWorld", func(t *testing.T, tool *engine.Tool) { wantBool(t, "IsOpenWorld", tool.IsOpenWorld(bg, input), true) }},
		{`interruptBehavior = "stop",`, "interruptBehavior", func(t *testing.T, tool *engine.Tool) { wantString(tool.InterruptBehavior(bg), "block")(t) }},
	}
	for _, tt := range tests {
		t.Run(tt.member, func(t *testing.T) {
			tool, diags := loadLua(t, luaSource(tt.extra))
			if tool == nil {
				t.Fatalf("load failed:\n%s", diagText(diags))
			}
			d, ok := findDiag(diags, diag.SeverityWarning, tt.member+" must be")
			if !ok {
				t.Fatalf("no warning about %s:\n%s", tt.member, diagText(diags))
			}
			if d.File != "t.lua" || d.Line != extraLine {
				t.Errorf("warning at %s:%d, want t.lua:%d", d.File, d.Line, extraLine)
			}
			tt.check(t, tool)
		})
	}
}

// TestLuaStaticValues checks members given as plain values of the right kind.
func TestLuaStaticValues(t *testing.T) {
	runMemberCases(t, []memberCase{
		{"description", `description = "Edit a file",`, func(t *testing.T, tool *engine.Tool) {
			wantString(tool.Description(bg, input), "Edit a file")(t)
		}},
		{"userFacingName", `userFacingName = "Editor",`, func(t *testing.T, tool *engine.Tool) {
			wantString(tool.UserFacingName(bg, input), "Editor")(t)
			wantString(tool.RenderToolUse(bg, input), `Editor(path: "a")`)(t)
		}},
		{"isEnabled false", `isEnabled = false,`, func(t *testing.T, tool *engine.Tool) { wantBool(t, "IsEnabled", tool.IsEnabled(bg), false) }},
		{"isReadOnly true", `isReadOnly = true,`, func(t *testing.T, tool *engine.Tool) {
			wantBool(t, "IsReadOnly", tool.IsReadOnly(bg, input), true)
			if p := tool.CheckPermissions(bg, input, &engine.CallContext{}); p.Behavior != rules.Allow {
				t.Errorf("default checkPermissions of a read-only tool = %s, want allow", p.Behavior)
			}
		}},
		{"isConcurrencySafe true", `isConcurrencySafe = true,`, func(t *testing.T, tool *engine.Tool) {
			wantBool(t, "IsConcurrencySafe", tool.IsConcurrencySafe(bg, input), true)
		}},
		{"isDestructive true", `isDestructive = true,`, func(t *testing.T, tool *engine.Tool) {
			wantBool(t, "IsDestructive", tool.IsDestructive(bg, input), true)
		}},
		{"isOpenWorld true", `isOpenWorld = true,`, func(t *testing.T, tool *engine.Tool) { wantBool(t, "IsOpenWorld", tool.IsOpenWorld(bg, input), true) }},
		{"interruptBehavior cancel", `interruptBehavior = "cancel",`, func(t *testing.T, tool *engine.Tool) { wantString(tool.InterruptBehavior(bg), "cancel")(t) }},
		{"interruptBehavior block", `interruptBehavior = "block",`, func(t *testing.T, tool *engine.Tool) { wantString(tool.InterruptBehavior(bg), "block")(t) }},
		{"maxResultSizeChars below the cap", `maxResultSizeChars = 100,`, func(t *testing.T, tool *engine.Tool) {
			if got := tool.MaxResultSizeChars(); got != 100 {
				t.Errorf("MaxResultSizeChars = %v, want 100", got)
			}
		}},
		{"maxResultSizeChars above the cap", `maxResultSizeChars = 1e9,`, func(t *testing.T, tool *engine.Tool) {
			if got := tool.MaxResultSizeChars(); got != engine.DefaultMaxResultSizeChars {
				t.Errorf("MaxResultSizeChars = %v, want %d", got, engine.DefaultMaxResultSizeChars)
			}
		}},
		{"maxResultSizeChars infinite (1/0)", `maxResultSizeChars = 1/0,`, func(t *testing.T, tool *engine.Tool) {
			if got := tool.MaxResultSizeChars(); !math.IsInf(got, 1) {
				t.Errorf("MaxResultSizeChars = %v, want +Inf", got)
			}
		}},
		{"searchHint", `searchHint = "find files by glob pattern",`, func(t *testing.T, tool *engine.Tool) {
			wantString(tool.SearchHint(), "find files by glob pattern")(t)
		}},
		{"aliases", `aliases = {"OldT", "T2"},`, func(t *testing.T, tool *engine.Tool) {
			if got := tool.Aliases(); !reflect.DeepEqual(got, []string{"OldT", "T2"}) {
				t.Errorf("Aliases = %v", got)
			}
		}},
		{"shouldDefer", `shouldDefer = true,`, func(t *testing.T, tool *engine.Tool) { wantBool(t, "Deferred", tool.Deferred(), true) }},
		{"alwaysLoad wins over shouldDefer", `shouldDefer = true, alwaysLoad = true,`, func(t *testing.T, tool *engine.Tool) {
			wantBool(t, "Deferred", tool.Deferred(), false)
		}},
		{"outputSchema", `outputSchema = {type = "object", properties = {n = {type = "number"}}},`, func(t *testing.T, tool *engine.Tool) {
			want := map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "number"}}}
			if got := tool.OutputSchema(); !reflect.DeepEqual(got, want) {
				t.Errorf("OutputSchema = %#v", got)
			}
		}},
		{"private fields are allowed", `_cache = {}, _VERSION = 2,`, func(t *testing.T, tool *engine.Tool) {}},
	})
}

// TestLuaMaxResultSizeCharsMathHuge exposes a bug: gopher-lua's math.huge is
// math.MaxFloat64, not +Inf, so `maxResultSizeChars = math.huge` (the documented way
// to say "never persist") is capped at 50000 like any large number.
func TestLuaMaxResultSizeCharsMathHuge(t *testing.T) {
	tool := mustLoad(t, luaSource(`maxResultSizeChars = math.huge,`))
	if got := tool.MaxResultSizeChars(); !math.IsInf(got, 1) {
		t.Errorf("maxResultSizeChars = math.huge gives a threshold of %v, want +Inf (never persist)", got)
	}
}

// TestLuaValueOrFunctionMembers checks members given as functions of the input or
// of the options.
func TestLuaValueOrFunctionMembers(t *testing.T) {
	// prompt replaces a required member, so it is built by hand.
	tool := mustLoad(t, luaSourceWith(memberName,
		`prompt = function(opts) return "tools: " .. table.concat(opts.tools, ",") .. " n=" .. #opts.tools end,`,
		memberSchema, memberCall))
	for _, tt := range []struct {
		tools []string
		want  string
	}{
		{[]string{"Read", "T"}, "tools: Read,T n=2"},
		{nil, "tools:  n=0"},
	} {
		if got, err := tool.Prompt(bg, engine.PromptOptions{Tools: tt.tools}); err != nil || got != tt.want {
			t.Errorf("Prompt(%v) = %q, %v; want %q", tt.tools, got, err, tt.want)
		}
	}

	runMemberCases(t, []memberCase{
		{"description of input and opts", `description = function(input, opts) return "edit " .. input.path .. " " .. type(opts) end,`, func(t *testing.T, tool *engine.Tool) {
			wantString(tool.Description(bg, input), "edit a table")(t)
		}},
		{"userFacingName of input", `userFacingName = function(input) return "T:" .. input.path end,`, func(t *testing.T, tool *engine.Tool) {
			wantString(tool.UserFacingName(bg, input), "T:a")(t)
		}},
		{"isEnabled function", `isEnabled = function() return false end,`, func(t *testing.T, tool *engine.Tool) {
			wantBool(t, "IsEnabled", tool.IsEnabled(bg), false)
		}},
		{"isReadOnly of input", `isReadOnly = function(input) return input.path == "r" end,`, func(t *testing.T, tool *engine.Tool) {
			r := map[string]any{"path": "r"}
			w := map[string]any{"path": "w"}
			wantBool(t, "IsReadOnly(r)", tool.IsReadOnly(bg, r), true)
			wantBool(t, "IsReadOnly(w)", tool.IsReadOnly(bg, w), false)
			if p := tool.CheckPermissions(bg, r, &engine.CallContext{}); p.Behavior != rules.Allow {
				t.Errorf("checkPermissions(r) = %s, want allow", p.Behavior)
			}
			if p := tool.CheckPermissions(bg, w, &engine.CallContext{}); p.Behavior != rules.Ask {
				t.Errorf("checkPermissions(w) = %s, want ask", p.Behavior)
			}
		}},
		{"isConcurrencySafe of input", `isConcurrencySafe = function(input) return input.path ~= "lock" end,`, func(t *testing.T, tool *engine.Tool) {
			wantBool(t, "IsConcurrencySafe(a)", tool.IsConcurrencySafe(bg, input), true)
			wantBool(t, "IsConcurrencySafe(lock)", tool.IsConcurrencySafe(bg, map[string]any{"path": "lock"}), false)
		}},
		{"isDestructive of input", `isDestructive = function(input) return input.path == "/" end,`, func(t *testing.T, tool *engine.Tool) {
			wantBool(t, "IsDestructive(a)", tool.IsDestructive(bg, input), false)
			wantBool(t, "IsDestructive(/)", tool.IsDestructive(bg, map[string]any{"path": "/"}), true)
		}},
		{"isOpenWorld of input", `isOpenWorld = function(input) return input.path:sub(1, 4) == "http" end,`, func(t *testing.T, tool *engine.Tool) {
			wantBool(t, "IsOpenWorld(a)", tool.IsOpenWorld(bg, input), false)
			wantBool(t, "IsOpenWorld(http)", tool.IsOpenWorld(bg, map[string]any{"path": "https://x"}), true)
		}},
		{"interruptBehavior function", `interruptBehavior = function() return "cancel" end,`, func(t *testing.T, tool *engine.Tool) {
			wantString(tool.InterruptBehavior(bg), "cancel")(t)
		}},
		{"validateInput table", `validateInput = function(input, ctx)
			if input.path == "bad" then return {result = false, message = "no bad paths", errorCode = 3} end
			return {result = true}
		end,`, func(t *testing.T, tool *engine.Tool) {
			if v := tool.ValidateInput(bg, input, &engine.CallContext{}); !v.Valid {
				t.Errorf("valid input rejected: %+v", v)
			}
			v := tool.ValidateInput(bg, map[string]any{"path": "bad"}, &engine.CallContext{})
			if v.Valid || v.Message != "no bad paths" || v.ErrorCode != 3 {
				t.Errorf("ValidateInput(bad) = %+v", v)
			}
		}},
		{"validateInput false, message", `validateInput = function() return false, "nope" end,`, func(t *testing.T, tool *engine.Tool) {
			if v := tool.ValidateInput(bg, input, &engine.CallContext{}); v.Valid || v.Message != "nope" {
				t.Errorf("ValidateInput = %+v", v)
			}
		}},
		{"validateInput false without message", `validateInput = function() return {result = false} end,`, func(t *testing.T, tool *engine.Tool) {
			if v := tool.ValidateInput(bg, input, &engine.CallContext{}); v.Valid || v.Message == "" {
				t.Errorf("ValidateInput = %+v, want invalid with a message", v)
			}
		}},
		{"validateInput true", `validateInput = function() return true end,`, func(t *testing.T, tool *engine.Tool) {
			wantBool(t, "Valid", tool.ValidateInput(bg, input, &engine.CallContext{}).Valid, true)
		}},
		{"checkPermissions allow with updatedInput", `checkPermissions = function(input, ctx) return {behavior = "allow", updatedInput = {path = input.path .. "!"}} end,`, func(t *testing.T, tool *engine.Tool) {
			p := tool.CheckPermissions(bg, input, &engine.CallContext{})
			if p.Behavior != rules.Allow || !reflect.DeepEqual(p.UpdatedInput, map[string]any{"path": "a!"}) {
				t.Errorf("CheckPermissions = %+v", p)
			}
		}},
		{"checkPermissions deny", `checkPermissions = function() return {behavior = "deny", message = "never"} end,`, func(t *testing.T, tool *engine.Tool) {
			if p := tool.CheckPermissions(bg, input, &engine.CallContext{}); p.Behavior != rules.Deny || p.Message != "never" {
				t.Errorf("CheckPermissions = %+v", p)
			}
		}},
		{"checkPermissions deny without message", `checkPermissions = function() return {behavior = "deny"} end,`, func(t *testing.T, tool *engine.Tool) {
			if p := tool.CheckPermissions(bg, input, &engine.CallContext{}); p.Behavior != rules.Deny || p.Message == "" {
				t.Errorf("CheckPermissions = %+v, want deny with a default message", p)
			}
		}},
		{"checkPermissions passthrough", `checkPermissions = function() return {behavior = "passthrough"} end,`, func(t *testing.T, tool *engine.Tool) {
			if p := tool.CheckPermissions(bg, input, &engine.CallContext{}); p.Behavior != rules.Passthrough {
				t.Errorf("CheckPermissions = %+v", p)
			}
		}},
		{"getPath, ruleContent, toAutoClassifierInput", `getPath = function(input) return "/src/" .. input.path end,
			ruleContent = function(input) return "cat " .. input.path end,
			toAutoClassifierInput = function(input) return "read " .. input.path end,`, func(t *testing.T, tool *engine.Tool) {
			if p, ok := tool.GetPath(bg, input); !ok || p != "/src/a" {
				t.Errorf("GetPath = %q, %v", p, ok)
			}
			if c, ok := tool.RuleContent(bg, input); !ok || len(c) != 1 || c[0] != "cat a" {
				t.Errorf("RuleContent = %q, %v", c, ok)
			}
			wantString(tool.ToAutoClassifierInput(bg, input), "read a")(t)
		}},
		{"mapResult string", `mapResult = function(data, id) return id .. ":" .. data.v end,`, func(t *testing.T, tool *engine.Tool) {
			c, err := tool.MapResult(bg, map[string]any{"v": "x"}, "toolu_1")
			if err != nil || c.String() != "toolu_1:x" {
				t.Errorf("MapResult = %v, %v", c, err)
			}
		}},
		{"mapResult blocks", `mapResult = function(data) return {{type = "text", text = "a"}, {type = "image", source = {type = "base64", media_type = "image/png", data = "AAAA"}}} end,`, func(t *testing.T, tool *engine.Tool) {
			c, err := tool.MapResult(bg, "x", "id")
			want := engine.Content{{Type: "text", Text: "a"}, {Type: "image", Source: map[string]any{"type": "base64", "media_type": "image/png", "data": "AAAA"}}}
			if err != nil || !reflect.DeepEqual(c, want) {
				t.Errorf("MapResult = %#v, %v", c, err)
			}
		}},
		{"render members", `renderToolUseMessage = function(input) return "use " .. input.path end,
			renderToolResultMessage = function(data) return "got " .. data end,
			renderToolUseProgressMessage = function(p) return "at " .. p.pct .. "%" end,
			renderToolUseRejectedMessage = function(input) return "refused " .. input.path end,
			renderToolUseErrorMessage = function(msg) return "oops: " .. msg end,`, func(t *testing.T, tool *engine.Tool) {
			wantString(tool.RenderToolUse(bg, input), "use a")(t)
			wantString(tool.RenderResult(bg, "d"), "got d")(t)
			wantString(tool.RenderProgress(bg, map[string]any{"pct": 50.0}), "at 50%")(t)
			wantString(tool.RenderRejected(bg, input), "refused a")(t)
			wantString(tool.RenderError(bg, "x"), "oops: x")(t)
		}},
	})
}

// TestLuaLoadErrors covers every way a file fails to load: the wrong kind for a
// member the table answers with a load error, required members missing, invalid
// names, unknown members, schemas that are not object schemas, broken files.
func TestLuaLoadErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		msg  string
		line int // 0: any line
	}{
		{"name not a string", luaSourceWith(`name = 5,`, memberPrompt, memberSchema, memberCall), "name must be a string", 2},
		{"aliases a string", luaSource(`aliases = "Old",`), "aliases must be a list of strings", extraLine},
		{"aliases not strings", luaSource(`aliases = {1},`), "aliases must be a list of strings", extraLine},
		{"aliases with keys", luaSource(`aliases = {"A", x = "B"},`), "aliases must be a list of strings", extraLine},
		{"alias invalid", luaSource(`aliases = {"good", "bad alias"},`), `alias "bad alias"`, 0},
		{"searchHint", luaSource(`searchHint = 3,`), "searchHint must be a string", extraLine},
		{"shouldDefer", luaSource(`shouldDefer = "yes",`), "shouldDefer must be a boolean", extraLine},
		{"alwaysLoad", luaSource(`alwaysLoad = 1,`), "alwaysLoad must be a boolean", extraLine},
		{"maxResultSizeChars string", luaSource(`maxResultSizeChars = "big",`), "maxResultSizeChars must be a number", extraLine},
		{"maxResultSizeChars negative", luaSource(`maxResultSizeChars = -1,`), "maxResultSizeChars must be positive", extraLine},
		{"maxResultSizeChars zero", luaSource(`maxResultSizeChars = 0,`), "maxResultSizeChars must be positive", extraLine},
		{"maxResultSizeChars NaN", luaSource(`maxResultSizeChars = 0/0,`), "maxResultSizeChars must be positive", extraLine},
		{"inputSchema string", luaSourceWith(memberName, memberPrompt, `inputSchema = "object",`, memberCall), "inputSchema must be a table", 4},
		{"outputSchema number", luaSource(`outputSchema = 5,`), "outputSchema must be a table", extraLine},
		{"outputSchema invalid", luaSource(`outputSchema = {type = "nosuchtype"},`), "outputSchema", 0},
		{"prompt number", luaSourceWith(memberName, `prompt = 5,`, memberSchema, memberCall), "prompt must be a string or a function", 3},
		{"call string", luaSourceWith(memberName, memberPrompt, memberSchema, `call = "run",`), "call must be a function", 5},
		{"validateInput bool", luaSource(`validateInput = true,`), "validateInput must be a function", extraLine},
		{"checkPermissions string", luaSource(`checkPermissions = "allow",`), "checkPermissions must be a function", extraLine},
		{"getPath", luaSource(`getPath = "path",`), "getPath must be a function", extraLine},
		{"ruleContent", luaSource(`ruleContent = {},`), "ruleContent must be a function", extraLine},
		{"toAutoClassifierInput", luaSource(`toAutoClassifierInput = "x",`), "toAutoClassifierInput must be a function", extraLine},
		{"mapResult", luaSource(`mapResult = 1,`), "mapResult must be a function", extraLine},
		{"renderToolUseMessage", luaSource(`renderToolUseMessage = "x",`), "renderToolUseMessage must be a function", extraLine},
		{"renderToolResultMessage", luaSource(`renderToolResultMessage = 1,`), "renderToolResultMessage must be a function", extraLine},
		{"renderToolUseProgressMessage", luaSource(`renderToolUseProgressMessage = true,`), "renderToolUseProgressMessage must be a function", extraLine},
		{"renderToolUseRejectedMessage", luaSource(`renderToolUseRejectedMessage = {},`), "renderToolUseRejectedMessage must be a function", extraLine},
		{"renderToolUseErrorMessage", luaSource(`renderToolUseErrorMessage = "x",`), "renderToolUseErrorMessage must be a function", extraLine},

		{"name missing", luaSourceWith(memberPrompt, memberSchema, memberCall), "required member name is missing", 0},
		{"inputSchema missing", luaSourceWith(memberName, memberPrompt, memberCall), "required member inputSchema is missing", 0},
		{"prompt missing", luaSourceWith(memberName, memberSchema, memberCall), "required member prompt is missing", 0},
		{"call missing", luaSourceWith(memberName, memberPrompt, memberSchema), "required member call is missing", 0},

		{"unknown member with hint", luaSource(`isReadonly = true,`), `unknown member "isReadonly" (did you mean isReadOnly?)`, extraLine},
		{"unknown member, case", luaSource(`Description = "x",`), "(did you mean description?)", extraLine},
		{"unknown member without hint", luaSource(`frobnicate = true,`), `unknown member "frobnicate"`, extraLine},
		{"non-string key", luaSource(`"positional",`), "key of type number", 0},

		{"schema root array", luaSourceWith(memberName, memberPrompt, `inputSchema = {type = "array"},`, memberCall), "root must be an object schema", 4},
		{"schema root without type", luaSourceWith(memberName, memberPrompt, `inputSchema = {properties = {}},`, memberCall), "root must be an object schema", 4},
		{"schema invalid keyword value", luaSourceWith(memberName, memberPrompt, `inputSchema = {type = "object", properties = {n = {type = "nosuchtype"}}},`, memberCall), "inputSchema", 4},
		{"schema remote ref", luaSourceWith(memberName, memberPrompt, `inputSchema = {type = "object", properties = {n = {["$ref"] = "https://example.com/s.json"}}},`, memberCall), "inputSchema", 4},
		{"schema not JSON", luaSourceWith(memberName, memberPrompt, `inputSchema = {type = "object", default = print},`, memberCall), "inputSchema is not a JSON value", 4},
		{"schema array", luaSourceWith(memberName, memberPrompt, `inputSchema = {"object"},`, memberCall), "inputSchema", 4},

		{"returns a number", "return 5\n", "must return a table", 0},
		{"returns nothing", "local x = 1\n", "must return a table", 0},
		{"syntax error", "return {\n  name = \"T\"\n  prompt = 'p',\n}\n", "", 3},
		{"runtime error in the chunk", "local x = nil\nlocal y = x.field\nreturn {}\n", "attempt to index", 2},
		{"error in the chunk", "\n\nerror('refusing to load')\n", "refusing to load", 3},
		{"require of an unknown module", "local fs = require('fs')\nreturn {}\n", "module 'fs' not found", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool, diags := loadLua(t, tt.src)
			if tool != nil {
				t.Fatalf("loaded; want a load error containing %q", tt.msg)
			}
			var d diag.Diagnostic
			var ok bool
			if d, ok = findDiag(diags, diag.SeverityError, tt.msg); !ok {
				t.Fatalf("no error containing %q:\n%s", tt.msg, diagText(diags))
			}
			if d.File != "t.lua" {
				t.Errorf("diagnostic file = %q, want t.lua", d.File)
			}
			if tt.line != 0 && d.Line != tt.line {
				t.Errorf("diagnostic line = %d, want %d: %s", d.Line, tt.line, d)
			}
		})
	}
}

func TestLuaLoadReportsEveryProblem(t *testing.T) {
	_, diags := loadLua(t, luaSourceWith(`name = 5,`, `prompt = 5,`, memberSchema, memberCall, `frobnicate = 1,`))
	for _, want := range []string{"name must be", "prompt must be", "unknown member"} {
		if _, ok := findDiag(diags, diag.SeverityError, want); !ok {
			t.Errorf("no error %q in:\n%s", want, diagText(diags))
		}
	}
}

// TestLuaErrorsDoNotHideWarnings: a file with an error still gets the warnings of
// its other members, so that a check shows every mistake at once.
func TestLuaErrorsDoNotHideWarnings(t *testing.T) {
	_, diags := loadLua(t, luaSourceWith(`name = "a.b",`, memberPrompt,
		`inputSchema = {type = "object", properties = {path = {type = "string"}}, required = {"pth"}, propertys = {}},`, memberCall, `descripton = "x",`))
	for _, want := range []struct {
		sev  diag.Severity
		text string
	}{
		{diag.SeverityError, `unknown member "descripton" (did you mean description?)`},
		{diag.SeverityWarning, `required names "pth", which properties does not declare (did you mean path?)`},
		{diag.SeverityWarning, `unknown keyword "propertys" is ignored (did you mean properties?)`},
		{diag.SeverityWarning, `name "a.b" has dots`},
	} {
		if _, ok := findDiag(diags, want.sev, want.text); !ok {
			t.Errorf("no %s %q in:\n%s", want.sev, want.text, diagText(diags))
		}
	}
	// A member in error is not warned about as well.
	_, diags = loadLua(t, luaSourceWith(`name = "a b",`, memberPrompt, memberSchema, memberCall))
	if _, ok := findDiag(diags, diag.SeverityWarning, "only MCP clients"); ok {
		t.Errorf("an invalid name got a warning beside its error:\n%s", diagText(diags))
	}
}

func TestLuaToolNamesForModelAPIs(t *testing.T) {
	for name, want := range map[string]string{
		"git.status":            `name "git.status" has dots, which the Anthropic and OpenAI APIs refuse: they are offered it as git_status`,
		strings.Repeat("a", 65): "the Anthropic and OpenAI APIs allow at most 64",
	} {
		tool, diags := loadLua(t, luaSourceWith(`name = "`+name+`",`, memberPrompt, memberSchema, memberCall))
		if tool == nil {
			t.Fatalf("name %q rejected:\n%s", name, diagText(diags))
		}
		if d, ok := findDiag(diags, diag.SeverityWarning, want); !ok || d.Line != 2 {
			t.Errorf("name %q: want a warning at line 2 containing %q:\n%s", name, want, diagText(diags))
		}
	}
}

func TestLuaToolNames(t *testing.T) {
	valid := []string{"T", "a-b_C9", "Read", "git.status", strings.Repeat("a", 128)}
	invalid := []string{"", "1abc", "a b", ".a", "-x", "_x", "ü", strings.Repeat("a", 129)}
	for _, name := range valid {
		src := luaSourceWith(`name = "`+name+`",`, memberPrompt, memberSchema, memberCall)
		if tool, diags := loadLua(t, src); tool == nil || tool.Name() != name {
			t.Errorf("name %q rejected:\n%s", name, diagText(diags))
		}
	}
	for _, name := range invalid {
		src := luaSourceWith(`name = "`+name+`",`, memberPrompt, memberSchema, memberCall)
		tool, diags := loadLua(t, src)
		if tool != nil {
			t.Errorf("name %q accepted", name)
			continue
		}
		d, ok := findDiag(diags, diag.SeverityError, "must match ^[A-Za-z][A-Za-z0-9_.-]{0,127}$")
		if !ok || d.Line != 2 {
			t.Errorf("name %q: want an error at line 2 saying the name must match the pattern:\n%s", name, diagText(diags))
		}
	}
}

func TestLuaLoadLimits(t *testing.T) {
	t.Run("source size", func(t *testing.T) {
		src := luaSource("")
		tool, diags := loadLuaWith(t, Options{Limits: bindings.Limits{MaxSourceBytes: len(src) - 1}}, src)
		if tool != nil {
			t.Fatal("a source over the size limit loaded")
		}
		if _, ok := findDiag(diags, diag.SeverityError, "over the limit"); !ok {
			t.Errorf("diagnostics:\n%s", diagText(diags))
		}
	})
	t.Run("main chunk that never ends", func(t *testing.T) {
		start := time.Now()
		tool, diags := loadLuaWith(t, Options{Limits: bindings.Limits{InitTimeout: 100 * time.Millisecond}}, "while true do end\nreturn {}\n")
		if tool != nil {
			t.Fatal("loaded")
		}
		if time.Since(start) > 5*time.Second {
			t.Errorf("loading took %v", time.Since(start))
		}
		if !diag.HasErrors(diags) {
			t.Errorf("no error")
		}
	})
}

func TestLoadDirectly(t *testing.T) {
	def, diags := New(Options{}).Load("direct.lua", []byte(luaSource(`aliases = {"D"},`)), engine.LoadEnv{})
	if diag.HasErrors(diags) {
		t.Fatal(diagText(diags))
	}
	defer def.Close()
	if def.Name != "T" || def.Source != "direct.lua" || !reflect.DeepEqual(def.Aliases, []string{"D"}) {
		t.Errorf("def = %+v", def)
	}
	if def.Call == nil || def.Prompt == nil || def.InputSchema == nil {
		t.Error("required members missing from the engine.ToolDef")
	}
	tool, err := engine.Build(def)
	if err != nil {
		t.Fatal(err)
	}
	if tool.Name() != "T" {
		t.Errorf("Name = %q", tool.Name())
	}
	if _, diags := New(Options{}).Load("bad.lua", []byte("return {"), engine.LoadEnv{}); !diag.HasErrors(diags) || diags[0].File != "bad.lua" {
		t.Errorf("syntax error diagnostics: %v", diags)
	}
}

// loadDirs builds an engine and loads each directory as a source, in order.
func loadDirs(t *testing.T, opts engine.Options, dirs ...string) (*engine.Engine, []diag.Diagnostic) {
	t.Helper()
	e := newTestEngine(t, opts)
	var sources []engine.Source
	for _, d := range dirs {
		sources = append(sources, engine.DirSource(d))
	}
	return e, e.Load(sources...)
}

// namedTool is a read-only tool (so that calls need no permission) answering result.
func namedTool(name, result string) string {
	return luaSourceWith(`name = "`+name+`",`, memberPrompt, memberSchema, `call = function() return "`+result+`" end,`, `isReadOnly = true,`)
}

func TestMissingCommaHint(t *testing.T) {
	src := "return {\n  name = \"X\"\n  prompt = \"p\",\n}\n"
	_, diags := loadLua(t, src)
	if d, ok := findDiag(diags, diag.SeverityError, "(is a comma missing at the end of line 2?)"); !ok || d.Line != 3 {
		t.Errorf("no comma hint at line 3:\n%s", diagText(diags))
	}
	// No hint where a comma is not the problem.
	_, diags = loadLua(t, "return {\n  name = \"X\",\n  prompt = = 1,\n}\n")
	if _, ok := findDiag(diags, diag.SeverityError, "comma"); ok {
		t.Errorf("a comma hint for another mistake:\n%s", diagText(diags))
	}
}

// minimalDef is a Go tool with the required members only.
func minimalDef() engine.ToolDef {
	return engine.ToolDef{
		Name:        "G",
		Prompt:      func(context.Context, engine.PromptOptions) (string, error) { return "prompt", nil },
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}},
		Call: func(context.Context, map[string]any, *engine.CallContext) (*engine.ToolResult, error) {
			return &engine.ToolResult{Data: "ok"}, nil
		},
	}
}

// TestKeepStateFor checks that the state which read the file of Options.KeepStateFor
// serves its first call, and that other tools' states are closed after loading: a
// pure host module counts how often a file's chunk runs, which is once per state.
func TestKeepStateFor(t *testing.T) {
	var mu sync.Mutex // the engine loads files side by side
	runs := map[string]int{}
	counter := &bindings.Module{Name: "counter", Pure: true, Funcs: map[string]lua.LGFunction{
		"ran": func(L *lua.LState) int {
			mu.Lock()
			defer mu.Unlock()
			runs[L.CheckString(1)]++
			return 0
		},
	}}
	src := func(name string) string {
		return `require("counter").ran("` + name + `")` + "\n" + namedTool(name, "ok "+name)
	}
	dir := writeDir(t, map[string]string{"kept.lua": src("Kept"), "other.lua": src("Other")})
	e := newTestEngine(t, engine.Options{}, Options{Modules: []*bindings.Module{counter}, KeepStateFor: "Kept"})
	if diags := e.Load(engine.DirSource(dir)); diag.HasErrors(diags) {
		t.Fatal(diagText(diags))
	}
	for _, name := range []string{"Kept", "Other"} {
		r := e.Call(bg, engine.ToolUse{ID: "toolu_1", Name: name, Input: []byte(`{}`)})
		if r.Block.IsError || r.Block.Content.String() != "ok "+name {
			t.Fatalf("%s: %s", name, r.Block.Content.String())
		}
	}
	// Kept: the loading state served the call. Other: loading, then a state for the call.
	mu.Lock()
	defer mu.Unlock()
	if want := map[string]int{"Kept": 1, "Other": 2}; !reflect.DeepEqual(runs, want) {
		t.Errorf("chunk runs %v, want %v", runs, want)
	}
}
