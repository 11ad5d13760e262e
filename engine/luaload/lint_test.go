package luaload

import (
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/engine/diag"
)

// TestLintFindsMapResultWhereverItIsGiven holds the lint of content blocks to the ways a file gives
// mapResult: a field of the returned table, a local function, x.mapResult = and
// function x.mapResult; and to nothing outside it.
func TestLintFindsMapResultWhereverItIsGiven(t *testing.T) {
	bad := `{ { type = "audio", data = "AAAA", mimeType = "audio" } }`
	for name, src := range map[string]string{
		"field":          "return { mapResult = function() return " + bad + " end }",
		"local function": "local function mapResult() return " + bad + " end\nreturn { mapResult = mapResult }",
		"assignment":     "local tool = {}\ntool.mapResult = function() return " + bad + " end\nreturn tool",
		"function def":   "local tool = {}\nfunction tool.mapResult() return " + bad + " end\nreturn tool",
	} {
		diags := (&lintFile{file: "t.lua", content: "mapResult"}).lint([]byte(src))
		if len(diags) != 1 || diags[0].Severity != diag.SeverityError || !strings.Contains(diags[0].Message, `mapResult: audio block: mimeType: "audio" is not a MIME type`) {
			t.Errorf("%s: diagnostics = %v", name, diags)
		}
	}
	elsewhere := "local schema = " + bad + "\nreturn { call = function() return " + bad + " end, mapResult = function(d) return d end }"
	if diags := (&lintFile{file: "t.lua", content: "mapResult"}).lint([]byte(elsewhere)); len(diags) != 0 {
		t.Errorf("blocks outside mapResult reported: %v", diags)
	}
}

// filesModule is a host module of the test's own: the lint knows its functions from
// the module as registered, not from a list of its own.
var filesModule = &bindings.Module{Name: "files", Funcs: map[string]lua.LGFunction{
	"read":  func(L *lua.LState) int { return 0 },
	"write": func(L *lua.LState) int { return 0 },
}}

// TestLintChecksToolCodeAgainstItsSchemaAndHost holds the lint of a tool's code to
// what it must report (with the line, and a hint where one is near) and to what it
// must leave alone: a name shadowed or assigned again, a field written, a schema
// that admits more fields.
func TestLintChecksToolCodeAgainstItsSchemaAndHost(t *testing.T) {
	const schema = `inputSchema = {type = "object", properties = {file_path = {type = "string"}}},`
	tool := func(extra ...string) string {
		return `local files = require("files")` + "\n" +
			luaSourceWith(append([]string{memberName, memberPrompt, schema}, extra...)...)
	}
	for _, c := range []struct {
		name, src string
		want      string // a warning's text, "" for none
		line      int
	}{
		{"an undeclared input field", tool(`call = function(input) return input.filepath end,`),
			"input.filepath reads a field inputSchema does not declare (did you mean file_path?)", 6},
		{"in validateInput too", tool(`call = function() end,`, `validateInput = function(args, ctx) return args["nope"] == nil end,`),
			`args.nope reads a field inputSchema does not declare`, 7},
		{"a declared field", tool(`call = function(input) return input.file_path end,`), "", 0},
		{"the input as sent, before the schema", tool(`call = function() end,`,
			`coerceInput = function(input) return {file_path = input.path} end,`, `validationErrorSteer = function(input) return input.prompt and "no" or "" end,`), "", 0},
		{"a field the code writes", tool(`call = function(input) input.extra = 1; return input.extra end,`), "", 0},
		{"input shadowed", tool(`call = function(input) local input = {x = 1}; return input.x end,`), "", 0},
		{"input assigned again", tool(`call = function(input) input = {}; return input.x end,`), "", 0},
		{"an unknown ctx method", tool(`call = function(input, ctx) ctx:lgo("x") end,`), "ctx:lgo: ctx has no method lgo (did you mean log?)", 6},
		{"an unknown ctx field", tool(`call = function(input, ctx) return ctx.mdoe end,`), "ctx.mdoe: ctx has no field mdoe (did you mean mode?)", 6},
		{"ctx's own", tool(`call = function(input, ctx) ctx:log("x"); ctx.state:get("k"); return ctx.cwd, ctx.deadline, ctx.toolUseId end,`), "", 0},
		{"an unknown module function", tool(`call = function() return files.raed("x") end,`), "files.raed: the files module has no function raed (did you mean read?)", 6},
		{"a module shadowed", tool(`call = function() local files = {raed = 1}; return files.raed end,`), "", 0},
		{"a library function", tool(`call = function() return string.fromat("%d", 1) end,`), "string.fromat: the string library has no function fromat (did you mean format?)", 6},
		{"json's", tool(`call = function() local json = require("json"); return json.encode({}), json.decod end,`), "json.decod: the json module has no field decod (did you mean decode?)", 6},
		{"too many parameters", tool(`call = function(input, ctx, extra) end,`), "call = function(input, ctx, extra): call is called with 2 arguments (input, ctx), so extra is always nil", 6},
		{"none expected", tool(`call = function() end,`, `isEnabled = function(x) return true end,`), "isEnabled is called with no arguments, so x is always nil", 7},
		{"fewer are fine", tool(`call = function() end,`, `isReadOnly = function() return true end,`), "", 0},
		{"a method takes self", "local tool = {" + memberName + memberPrompt + schema + "}\nfunction tool:call(input, ctx) end\nreturn tool",
			"call = function(self, input, ctx): call is called with 2 arguments (input, ctx), so ctx is always nil", 2},
		{"a schema open to more", luaSourceWith(memberName, memberPrompt, `inputSchema = {type = "object", properties = {a = {}}, additionalProperties = true},`,
			`call = function(input) return input.b end,`), "", 0},
		{"patternProperties declare", luaSourceWith(memberName, memberPrompt, `inputSchema = {type = "object", properties = {a = {}}, patternProperties = {["^x_"] = {}}},`,
			`call = function(input) return input.x_1 end,`), "", 0},
		{"properties of an alternative", luaSourceWith(memberName, memberPrompt, `inputSchema = {type = "object", properties = {a = {}}, ["if"] = {properties = {b = {}}}},`,
			`call = function(input) return input.b end,`), "", 0},
		{"a schema without properties", luaSourceWith(memberName, memberPrompt, `inputSchema = {type = "object"},`,
			`call = function(input) return input.b end,`), "", 0},
		{"the Anthropic API's refusal", luaSourceWith(memberName, memberPrompt, `inputSchema = {type = "object", properties = {a = {}}, anyOf = {{required = {"a"}}}},`, memberCall),
			"input_schema has anyOf at its root, which the Anthropic Messages API refuses", 4},
	} {
		_, diags := loadLuaWith(t, Options{Lint: true, Modules: []*bindings.Module{filesModule}}, c.src)
		var warnings []diag.Diagnostic
		for _, d := range diags {
			if d.Severity != diag.SeverityNotice {
				warnings = append(warnings, d)
			}
		}
		switch {
		case c.want == "" && len(warnings) > 0:
			t.Errorf("%s: reported:\n%s", c.name, diagText(warnings))
		case c.want != "":
			if d, ok := findDiag(warnings, diag.SeverityWarning, c.want); !ok || d.Line != c.line || len(warnings) != 1 {
				t.Errorf("%s: want only a warning at line %d with %q, got:\n%s", c.name, c.line, c.want, diagText(warnings))
			}
		}
		// Without Lint, loading reports none of it.
		if _, diags := loadLuaWith(t, Options{Modules: []*bindings.Module{filesModule}}, c.src); len(diags) > 0 && c.name != "the Anthropic API's refusal" {
			t.Errorf("%s: reported without Lint:\n%s", c.name, diagText(diags))
		}
	}
}
