package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/luatool/luatool/bindings"
)

// call's results: nil or false with a message is the Lua way of failing, and gives an
// is_error result with the message alone; a contextModifier is refused by name; a
// script error keeps its traceback for the host in Result.Err.
func TestLuaCallResultForms(t *testing.T) {
	dir := writeDir(t, map[string]string{
		"nilmsg.lua":    luaSourceWith(`name = "NilMsg",`, memberPrompt, memberSchema, `isReadOnly = true,`, `call = function() return nil, "no such thing" end,`),
		"falsemsg.lua":  luaSourceWith(`name = "FalseMsg",`, memberPrompt, memberSchema, `isReadOnly = true,`, `call = function() return false, "refused" end,`),
		"modifier.lua":  luaSourceWith(`name = "Modifier",`, memberPrompt, memberSchema, `isReadOnly = true,`, `call = function() return { data = 1, contextModifier = function() end } end,`),
		"raise.lua":     luaSourceWith(`name = "Raise",`, memberPrompt, memberSchema, `isReadOnly = true,`, `call = function()`, `  error("deep")`, `end,`),
		"falseonly.lua": luaSourceWith(`name = "FalseOnly",`, memberPrompt, memberSchema, `isReadOnly = true,`, `call = function() return false end,`),
	})
	e, diags := loadDirs(t, Options{}, dir)
	if HasErrors(diags) {
		t.Fatal(diagText(diags))
	}
	for _, tc := range []struct {
		tool, text string
		isError    bool
	}{
		{"NilMsg", "no such thing", true},
		{"FalseMsg", "refused", true},
		{"Modifier", "contextModifier must be a table of changes {cwd=, mode=, allow=, ask=, deny=, state=} or a function returning one", true},
		{"FalseOnly", "false", false},
	} {
		r := call(e, bg, tc.tool, `{}`)
		if r.Block.IsError != tc.isError || r.Block.Content.String() != tc.text {
			t.Errorf("%s: is_error %v, %q; want %v, %q", tc.tool, r.Block.IsError, r.Block.Content.String(), tc.isError, tc.text)
		}
	}
	r := call(e, bg, "Raise", `{}`)
	var se *bindings.ScriptError
	if !errors.As(r.Err, &se) || se.Line == 0 || !strings.Contains(se.Traceback, "raise.lua") {
		t.Errorf("Result.Err = %#v; want the ScriptError with its line and traceback", r.Err)
	}
}

// Input nested past the conversion limit fails as invalid input, before the call.
func TestInputTooDeep(t *testing.T) {
	e, _ := pipelineEngine(t, Options{Limits: bindings.Limits{MaxDepth: 4}})
	r := call(e, bg, "Echo", `{"n": 1, "list": [[[[[1]]]]]}`)
	if r.Stage != StageInput || !strings.Contains(r.Block.Content.String(), "nests 6 levels deep; at most 4 are allowed") {
		t.Errorf("stage %s, %q", r.Stage, r.Block.Content.String())
	}
}

// TestResultBlockJSON: through json.Marshal, the hand-written encoding equals
// encoding/json's of the same fields, for text, blocks, errors and awkward strings.
func TestResultBlockJSON(t *testing.T) {
	type plain struct {
		Type      string  `json:"type"`
		ToolUseID string  `json:"tool_use_id"`
		Content   Content `json:"content"`
		IsError   bool    `json:"is_error"`
	}
	for _, b := range []ResultBlock{
		{Type: "tool_result", ToolUseID: "toolu_1", Content: Text("<tool_use_error>a & b \"q\"\n\u2028</tool_use_error>"), IsError: true},
		{Type: "tool_result", ToolUseID: "id \x01", Content: Content{{Type: "text", Text: "one"}, {Type: "image", Source: map[string]any{"type": "base64", "data": "AAAA"}}}},
		{Type: "tool_result", ToolUseID: "toolu_2"},
	} {
		got, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(plain(b))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("\n got %s\nwant %s", got, want)
		}
		if direct, _ := b.MarshalJSON(); !json.Valid(direct) {
			t.Errorf("MarshalJSON gave invalid JSON: %s", direct)
		}
	}
}
