package engine_test

import (
	"testing"

	"github.com/luatool/luatool/engine"
)

// A Lua tool's contextModifier, as a table or a function, changes the next call.
func TestLuaContextModifier(t *testing.T) {
	e := luaEngine(t, engine.Options{Cwd: "/start"}, map[string]string{
		"cd.lua": `return { name = "Cd", prompt = "p", inputSchema = { type = "object" },
  checkPermissions = function() return { behavior = "allow" } end,
  call = function(input, ctx) return { data = "moved", contextModifier = function(c) return { cwd = "/elsewhere", state = { visited = true } } end } end }`,
		"pwd.lua": `return { name = "Pwd", prompt = "p", inputSchema = { type = "object" }, isReadOnly = true,
  call = function(input, ctx) return ctx.cwd .. " " .. tostring(ctx.state:get("visited")) end }`,
	})
	results := e.Run(bg, []engine.ToolUse{{ID: "1", Name: "Pwd"}, {ID: "2", Name: "Cd"}, {ID: "3", Name: "Pwd"}})
	if got := results[0].Block.Content.String(); got != "/start nil" {
		t.Errorf("before: %q", got)
	}
	if got := results[2].Block.Content.String(); got != "/elsewhere true" {
		t.Errorf("after: %q", got)
	}
}
