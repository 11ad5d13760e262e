package engine_test

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/luaload"
)

// Helpers of the tests that run Lua tools through the engine: package luaload imports
// engine, so these tests are outside it and use its exported API (and the helpers of
// export_test.go).

// The member lines luaSourceWith builds tool files of.
const (
	memberPrompt = `prompt = "p",`
	memberSchema = `inputSchema = {type = "object", properties = {path = {type = "string"}}},`
	memberCall   = `call = function(input, ctx) return "ok" end,`
)

// luaSourceWith returns a tool file made of the given member lines, one a line after
// "return {".
func luaSourceWith(lines ...string) string {
	return "return {\n  " + strings.Join(lines, "\n  ") + "\n}\n"
}

// toolFS holds tool files, by name, in memory.
func toolFS(files map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for name, src := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(src)}
	}
	return fsys
}

// newLuaEngine builds a test engine with the Lua loader.
func newLuaEngine(t *testing.T, opts engine.Options) *engine.Engine {
	t.Helper()
	opts.Loaders = append(opts.Loaders, luaload.New(luaload.Options{}))
	return engine.NewTestEngine(t, opts)
}

// loadLua builds a test engine with the Lua loader and loads files as the source
// "t" (so that its files are named t/NAME.lua), returning the diagnostics.
func loadLua(t *testing.T, opts engine.Options, files map[string]string) (*engine.Engine, []diag.Diagnostic) {
	t.Helper()
	e := newLuaEngine(t, opts)
	return e, e.Load(engine.Source{Name: "t", FS: toolFS(files)})
}

// luaEngine is loadLua for files that must load without errors.
func luaEngine(t *testing.T, opts engine.Options, files map[string]string) *engine.Engine {
	t.Helper()
	e, diags := loadLua(t, opts, files)
	if diag.HasErrors(diags) {
		t.Fatalf("loading the Lua tools:\n%s", diagText(diags))
	}
	return e
}

var bg = context.Background()

// findDiag returns the first diagnostic of severity sev whose message contains msg.
func findDiag(diags []diag.Diagnostic, sev diag.Severity, msg string) (diag.Diagnostic, bool) {
	for _, d := range diags {
		if d.Severity == sev && strings.Contains(d.Message, msg) {
			return d, true
		}
	}
	return diag.Diagnostic{}, false
}

// diagText renders diagnostics one a line, for failure messages.
func diagText(diags []diag.Diagnostic) string {
	var lines []string
	for _, d := range diags {
		lines = append(lines, d.String())
	}
	return strings.Join(lines, "\n")
}
