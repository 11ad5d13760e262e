package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/scripts"
)

// runNew scaffolds a tool: NAME.lua with type annotations, a prompt, an input schema
// and a call that works, and a test file for it, in DIR (default: the first --tools
// directory, else the current one); with --prompt or --resource, NAME.lua is an MCP
// prompt or resource instead, alone. It refuses to overwrite anything. The type
// definitions and a .luarc.json for the Lua language server are added to the
// directory when it has none.
func runNew(a *app, args []string) int {
	if len(args) < 1 || len(args) > 2 {
		return a.errorf("usage: luatool new [--prompt|--resource] NAME [DIR]")
	}
	if a.cfg.newPrompt && a.cfg.newResource {
		return a.errorf("new: --prompt and --resource exclude each other: a file is one of them")
	}
	name := args[0]
	kind := "tool"
	switch {
	case a.cfg.newPrompt:
		kind = "prompt"
	case a.cfg.newResource:
		kind = "resource"
	}
	if !engine.ValidName(name) {
		return a.errorf("invalid %[1]s name %[2]q: a %[1]s name is a letter, then letters, digits, _, - or . (at most 128 in all); the Anthropic and OpenAI APIs take letters, digits, _ and - only (at most 64)", kind, name)
	}
	dir := "."
	if len(a.cfg.tools) > 0 {
		dir = a.cfg.tools[0]
	}
	if len(args) == 2 {
		dir = args[1]
	}
	base := fileBase(name)
	if strings.HasSuffix(base, "_test") {
		base += "_tool" // my_test.lua would be read as a test file, not a tool
	}
	files := []struct{ path, content string }{
		{filepath.Join(dir, base+".lua"), strings.ReplaceAll(toolTemplate, "NAME", name)},
		{filepath.Join(dir, base+"_test.lua"), strings.ReplaceAll(testTemplate, "NAME", name)},
	}
	switch kind {
	case "prompt":
		files = files[:1]
		files[0].content = strings.ReplaceAll(promptTemplate, "NAME", name)
	case "resource":
		files = files[:1]
		files[0].content = strings.ReplaceAll(resourceTemplate, "NAME", name)
	}
	for _, f := range files {
		if _, err := os.Lstat(f.path); err == nil {
			return a.errorf("%s exists; not overwritten", f.path)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return a.errorf("%v", err)
	}
	defs, err := fs.ReadFile(scripts.Tools(), "luatool.d.lua")
	if err != nil {
		return a.errorf("%v", err)
	}
	editor := []struct{ path, content string }{
		{filepath.Join(dir, "luatool.d.lua"), string(defs)},
		{filepath.Join(dir, ".luarc.json"), luarcTemplate},
	}
	for _, f := range files {
		if err := writeNew(f.path, f.content); err != nil {
			return a.errorf("%v", err) // created meanwhile: still nothing overwritten
		}
		fmt.Fprintf(a.stdout, "created %s\n", f.path)
	}
	for _, f := range editor {
		err := writeNew(f.path, f.content)
		switch {
		case errors.Is(err, fs.ErrExist):
		case err != nil:
			return a.errorf("%v", err)
		default:
			fmt.Fprintf(a.stdout, "created %s\n", f.path)
		}
	}
	if kind != "tool" {
		fmt.Fprintf(a.stdout, `
Next:
  luatool --tools %[1]s check                      # load it, report problems with file:line
  luatool --tools %[1]s list                       # the %[2]s is listed after the tools
  luatool --tools %[1]s serve                      # MCP clients %[3]s
`, dir, kind, map[string]string{"prompt": "get it with prompts/get", "resource": "read it with resources/read"}[kind])
		return ExitOK
	}
	fmt.Fprintf(a.stdout, `
Next:
  luatool --tools %[1]s check                      # load it, report problems with file:line
  luatool test %[1]s                               # run %[2]s_test.lua
  luatool --tools %[1]s call %[3]s '{"text": "hi"}'

Editors: %[1]s/.luarc.json points the Lua language server at luatool.d.lua (Lua 5.1).
If your editor opens another folder, add %[1]s/luatool.d.lua to "workspace.library"
in that folder's .luarc.json.
`, dir, base, name)
	return ExitOK
}

// writeNew writes a file that must not exist yet.
func writeNew(path, content string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(content); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// fileBase is the file name of a tool: snake case, dots as underscores
// (WordCount -> word_count, git.status -> git_status).
func fileBase(name string) string {
	var b strings.Builder
	runes := []rune(name)
	for i, r := range runes {
		switch {
		case r == '.' || r == '-':
			b.WriteRune('_')
		case unicode.IsUpper(r):
			if i > 0 && (unicode.IsLower(runes[i-1]) || unicode.IsDigit(runes[i-1]) ||
				(i+1 < len(runes) && unicode.IsLower(runes[i+1]) && unicode.IsUpper(runes[i-1]))) {
				b.WriteRune('_')
			}
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

const toolTemplate = `-- The NAME tool. Its members follow Claude Code's Tool contract; see
-- luatool.d.lua for all of them and their defaults.

---@type luatool.Tool
local tool = {
  name = "NAME",

  -- What the model reads to decide when and how to call the tool.
  prompt = [[Repeats the text it is given.

Usage:
- Describe here what NAME does, when to use it, and what each input means.]],

  -- Every input is validated against this schema before call runs.
  inputSchema = {
    type = "object",
    properties = {
      text = { type = "string", description = "The text to repeat" },
    },
    required = { "text" },
    additionalProperties = false,
  },

  -- Changes nothing, so it needs no permission and may run beside other calls.
  isReadOnly = true,
  isConcurrencySafe = true,

  ---@param input { text: string }
  ---@param ctx luatool.Context
  call = function(input, ctx)
    return "NAME: " .. input.text
  end,
}

return tool
`

const promptTemplate = `-- The NAME prompt: MCP clients offer it as a command (Claude Code:
-- /mcp__SERVER__NAME) and fill in its arguments. get only computes: host
-- functions that read or touch the world refuse there.

---@type luatool.Prompt
local prompt = {
  kind = "prompt",
  name = "NAME",
  description = "Describe here what NAME asks the model to do.",

  -- A get without a required argument is refused before get runs.
  arguments = {
    { name = "topic", description = "What to write about", required = true },
    { name = "tone", description = "How to write it (default: plain)" },
  },

  -- Returns the messages: a string is one user message; a list may mix
  -- { role = "user" | "assistant", content = "text" }.
  ---@param args { topic: string, tone?: string }
  get = function(args, ctx)
    return {
      { role = "user", content = "Write about " .. args.topic .. " in a " .. (args.tone or "plain") .. " tone." },
    }
  end,
}

return prompt
`

const resourceTemplate = `-- The NAME resource: MCP clients list it and read it by its URI (Claude Code:
-- an @-mention). read only computes: host functions that read or touch the
-- world refuse there.

---@type luatool.Resource
local resource = {
  kind = "resource",
  -- One URI; or uriTemplate = "NAME://{id}" for every URI the template
  -- matches, whose variables read gets in params.
  uri = "NAME://main",
  name = "NAME",
  description = "Describe here what NAME holds.",
  mimeType = "text/plain",

  -- Returns the content: a string, { text = ..., mimeType = ... } or
  -- { blob = base64, mimeType = ... }; nil, "message" is a failure.
  read = function(uri, ctx, params)
    return "The content of " .. uri
  end,
}

return resource
`

const testTemplate = `-- Tests of NAME: run them with luatool test.
local test = require("test")
local assert = require("assert")

test.case("repeats its text", function(t)
  local r = t:call("NAME", { text = "hello" })
  assert.eq(r.isError, false, r.text)
  assert.eq(r.text, "NAME: hello")
end)

test.case("refuses input without text", function(t)
  local r = t:call("NAME", {})
  assert.eq(r.stage, "input")
  assert.matches(r.text, "required parameter ` + "`text`" + ` is missing")
end)
`

const luarcTemplate = `{
  "$schema": "https://raw.githubusercontent.com/LuaLS/vscode-lua/master/setting/schema.json",
  "runtime.version": "Lua 5.1",
  "runtime.path": ["lib/?.lua"],
  "workspace.library": ["luatool.d.lua"]
}
`
