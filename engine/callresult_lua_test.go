package engine_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/engine"
)

// call's results: nil or false with a message is the Lua way of failing, and gives an
// is_error result with the message alone; a contextModifier is refused by name; a
// script error keeps its traceback for the host in Result.Err.
func TestLuaCallResultForms(t *testing.T) {
	e := luaEngine(t, engine.Options{}, map[string]string{
		"nilmsg.lua":    luaSourceWith(`name = "NilMsg",`, memberPrompt, memberSchema, `isReadOnly = true,`, `call = function() return nil, "no such thing" end,`),
		"falsemsg.lua":  luaSourceWith(`name = "FalseMsg",`, memberPrompt, memberSchema, `isReadOnly = true,`, `call = function() return false, "refused" end,`),
		"modifier.lua":  luaSourceWith(`name = "Modifier",`, memberPrompt, memberSchema, `isReadOnly = true,`, `call = function() return { data = 1, contextModifier = function() end } end,`),
		"raise.lua":     luaSourceWith(`name = "Raise",`, memberPrompt, memberSchema, `isReadOnly = true,`, `call = function()`, `  error("deep")`, `end,`),
		"falseonly.lua": luaSourceWith(`name = "FalseOnly",`, memberPrompt, memberSchema, `isReadOnly = true,`, `call = function() return false end,`),
	})
	for _, tc := range []struct {
		tool, text string
		isError    bool
	}{
		{"NilMsg", "no such thing", true},
		{"FalseMsg", "refused", true},
		{"Modifier", "contextModifier must be a table of changes {cwd=, mode=, allow=, ask=, deny=, state=} or a function returning one", true},
		{"FalseOnly", "false", false},
	} {
		r := engine.CallTool(e, bg, tc.tool, `{}`)
		if r.Block.IsError != tc.isError || r.Block.Content.String() != tc.text {
			t.Errorf("%s: is_error %v, %q; want %v, %q", tc.tool, r.Block.IsError, r.Block.Content.String(), tc.isError, tc.text)
		}
	}
	r := engine.CallTool(e, bg, "Raise", `{}`)
	var se *bindings.ScriptError
	if !errors.As(r.Err, &se) || se.Line == 0 || !strings.Contains(se.Traceback, "raise.lua") {
		t.Errorf("Result.Err = %#v; want the ScriptError with its line and traceback", r.Err)
	}
}
