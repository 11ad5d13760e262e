package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing/fstest"

	lua "github.com/yuin/gopher-lua"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/builtin/hostmod"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/feature"
	"github.com/luatool/luatool/engine/hooks"
	"github.com/luatool/luatool/engine/luaload"
	"github.com/luatool/luatool/engine/mcpserver"
	"github.com/luatool/luatool/engine/rules"
	"github.com/luatool/luatool/scripts"
)

// mustLoad loads Lua tool sources held in memory, for the examples.
func mustLoad(eng *engine.Engine, files map[string]string) {
	if diags := eng.Load(engine.Source{Name: "tools", FS: toolFS(files)}); diag.HasErrors(diags) {
		panic(fmt.Sprint(diags))
	}
}

// A tool is a Lua file returning a table. An engine loads Lua files with the Lua
// loader (package engine/luaload); load a directory of them and call one through the
// whole pipeline: schema validation, defaults, permissions, call and result mapping.
func Example() {
	tools := fstest.MapFS{
		"greet.lua": {Data: []byte(`
return {
  name = "Greet",
  prompt = "Greets someone by name.",
  inputSchema = {
    type = "object",
    properties = {
      name = { type = "string" },
      times = { type = "integer", default = 1 },
    },
    required = { "name" },
  },
  isReadOnly = true,
  call = function(input, ctx)
    local parts = {}
    for i = 1, input.times do
      parts[i] = "Hello, " .. input.name .. "!"
    end
    return table.concat(parts, " ")
  end,
}`)},
	}
	cwd, _ := os.Getwd() // the directory the tools work in; New refuses an empty one
	eng, err := engine.New(engine.Options{
		Loaders: []engine.Loader{luaload.New(luaload.Options{})},
		Cwd:     cwd,
	})
	if err != nil {
		panic(err)
	}
	if diags := eng.Load(engine.Source{Name: "tools", FS: tools}); diag.HasErrors(diags) {
		panic(fmt.Sprint(diags))
	}

	r := eng.Call(context.Background(), engine.ToolUse{ID: "toolu_1", Name: "Greet", Input: json.RawMessage(`{"name": "Ada", "times": "2"}`)})
	fmt.Println(r.Block.Content.String())

	r = eng.Call(context.Background(), engine.ToolUse{ID: "toolu_2", Name: "Greet", Input: json.RawMessage(`{}`)})
	fmt.Println(r.Block.IsError, r.Block.Content.String())
	// Output:
	// Hello, Ada! Hello, Ada!
	// true <tool_use_error>InputValidationError: Greet failed due to the following issue:
	// The required parameter `name` is missing</tool_use_error>
}

// What package luatool's Runtime wires, by hand: the standard host modules and the
// engine confined to the same roots (New refuses others), the standard tools, and a
// directory of the host's added beside them (AddSources adds; Load sets the whole
// list, and names what it drops).
func Example_embed() {
	dir, err := os.MkdirTemp("", "workspace")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("one\ntwo\n"), 0o644)
	ctx := context.Background()
	input := json.RawMessage(`{"pattern": "*.txt"}`)

	mods, err := hostmod.Standard([]string{dir}) // fs, glob, grep, shell, http, path: confined to dir
	if err != nil {
		panic(err)
	}
	eng, err := engine.New(engine.Options{
		Loaders: []engine.Loader{luaload.New(luaload.Options{Modules: mods})},
		Roots:   []string{dir},
	})
	if err != nil {
		panic(err)
	}
	diags := eng.Load(engine.Source{Name: "<standard>", FS: scripts.Tools()})
	diags = append(diags, eng.AddSources(engine.Source{Name: "mine", FS: toolFS(map[string]string{"hello.lua": `return {
  name = "Hello", prompt = "Greets.", inputSchema = { type = "object" }, isReadOnly = true,
  call = function() return "hello" end,
}`})})...) // engine.DirSource(dir) for a directory on disk
	res := eng.Call(ctx, engine.ToolUse{ID: "toolu_1", Name: "Glob", Input: input})
	fmt.Println(res.Block.Content.String())
	res = eng.Call(ctx, engine.ToolUse{ID: "toolu_2", Name: "Hello", Input: json.RawMessage(`{}`)})
	fmt.Println(res.Block.Content.String())
	fmt.Println(diag.HasErrors(diags))
	// Output:
	// notes.txt
	// hello
	// false
}

// Go-native tools go through the same defaults and pipeline as Lua tools. TypedTool
// writes one as a function of Go types: the input schema comes from the input struct,
// the validated input arrives decoded into it, and the members that hold for every
// input are values. This one is read-only, so it runs without asking.
func Example_goTool() {
	type upperIn struct {
		Text string `json:"text" jsonschema:"the text to upper-case"`
	}
	upper, err := engine.TypedTool[upperIn, string]{
		Name:            "Upper",
		Prompt:          "Upper-cases a text.",
		ReadOnly:        true,
		ConcurrencySafe: true,
		Call: func(_ context.Context, in upperIn, _ *engine.CallContext) (string, error) {
			return strings.ToUpper(in.Text), nil
		},
	}.Def()
	if err != nil {
		panic(err)
	}
	cwd, _ := os.Getwd()
	eng, err := engine.New(engine.Options{Tools: []engine.ToolDef{upper}, Cwd: cwd})
	if err != nil {
		panic(err)
	}
	schema, _ := json.Marshal(upper.InputSchema)
	fmt.Println(string(schema))
	r := eng.Call(context.Background(), engine.ToolUse{ID: "toolu_1", Name: "Upper", Input: json.RawMessage(`{"text": "quiet"}`)})
	fmt.Println(r.Block.Content.String())
	// Output:
	// {"additionalProperties":false,"properties":{"text":{"description":"the text to upper-case","type":"string"}},"required":["text"],"type":"object"}
	// QUIET
}

// Middleware wraps every call in the manner of net/http middleware, and answers with
// the decision type of Claude Code's hooks. Before next it may deny, ask, allow or
// rewrite the input; after next it sees the result and may add to it or replace it.
// This one refuses shouting, and tells the model how long the answer took.
func Example_middleware() {
	type upperIn struct {
		Text string `json:"text"`
	}
	upper, _ := engine.TypedTool[upperIn, string]{
		Name: "Upper", Prompt: "Upper-cases a text.", ReadOnly: true,
		Call: func(_ context.Context, in upperIn, _ *engine.CallContext) (string, error) {
			return strings.ToUpper(in.Text), nil
		},
	}.Def()
	noShouting := func(next hooks.CallHandler) hooks.CallHandler {
		return func(ctx context.Context, c *hooks.Call) hooks.Decision {
			if strings.HasSuffix(fmt.Sprint(c.In.ToolInput["text"]), "!") {
				return hooks.Decision{Permission: rules.Deny, Reason: "no exclamation marks"}
			}
			d := next(ctx, c) // c.In now holds the result: c.In.ToolResponse
			return hooks.Merge(d, hooks.Decision{AdditionalContext: fmt.Sprintf("%d characters", len(c.In.ToolResponse.(string)))})
		}
	}
	cwd, _ := os.Getwd()
	eng, err := engine.New(engine.Options{Tools: []engine.ToolDef{upper}, Cwd: cwd, Middleware: []hooks.Middleware{noShouting}})
	if err != nil {
		panic(err)
	}
	for _, text := range []string{"quiet", "loud!"} {
		r := eng.Call(context.Background(), engine.ToolUse{ID: "toolu_1", Name: "Upper", Input: json.RawMessage(`{"text": "` + text + `"}`)})
		fmt.Printf("%v %q\n", r.Block.IsError, r.Block.Content.String())
	}
	// Output:
	// false "QUIET\nPostToolUse:Upper hook additional context: 5 characters"
	// true "PreToolUse:Upper hook error: no exclamation marks"
}

// A host offers its own functions and values to Lua as a module that tools require.
// Funcs get full control of the Lua arguments; Values are exposed through gopher-luar,
// which converts arguments and results by reflection.
func Example_hostModule() {
	inventory := &bindings.Module{
		Name: "inventory",
		Doc:  "Stock levels of the shop.",
		Values: map[string]any{
			"count": func(item string) int { return map[string]int{"apple": 3, "pear": 0}[item] },
			"shop":  "Corner Shop",
		},
	}
	tools := fstest.MapFS{
		"stock.lua": {Data: []byte(`
local inventory = require("inventory")
return {
  name = "Stock",
  prompt = "Tells how many of an item are in stock.",
  inputSchema = { type = "object", properties = { item = { type = "string" } }, required = { "item" } },
  isReadOnly = true,
  call = function(input)
    return { data = { shop = inventory.shop, item = input.item, count = inventory.count(input.item) } }
  end,
}`)},
	}
	cwd, _ := os.Getwd()
	eng, err := engine.New(engine.Options{
		Loaders: []engine.Loader{luaload.New(luaload.Options{Modules: []*bindings.Module{inventory}})},
		Cwd:     cwd,
	})
	if err != nil {
		panic(err)
	}
	if diags := eng.Load(engine.Source{Name: "tools", FS: tools}); diag.HasErrors(diags) {
		panic(fmt.Sprint(diags))
	}
	r := eng.Call(context.Background(), engine.ToolUse{ID: "toolu_1", Name: "Stock", Input: json.RawMessage(`{"item": "apple"}`)})
	fmt.Println(r.Block.Content.String())
	// Output:
	// {"count":3,"item":"apple","shop":"Corner Shop"}
}

// Watch keeps the tools current with their files: a save takes effect as soon as the
// directory is quiet for the debounce time, and subscribers hear of each change.
func Example_watch() {
	dir, err := os.MkdirTemp("", "tools")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	tool := func(text string) []byte {
		return []byte(`return { name = "Hello", prompt = "Greets.", inputSchema = { type = "object" },
  isReadOnly = true, call = function() return "` + text + `" end }`)
	}
	if err := os.WriteFile(filepath.Join(dir, "hello.lua"), tool("hello"), 0o644); err != nil {
		panic(err)
	}
	cwd, _ := os.Getwd()
	eng, err := engine.New(engine.Options{
		Loaders: []engine.Loader{luaload.New(luaload.Options{})},
		Cwd:     cwd,
	})
	if err != nil {
		panic(err)
	}
	eng.Load(engine.DirSource(dir))
	events := make(chan engine.Event, 10)
	eng.Subscribe(func(ev engine.Event) { events <- ev })

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go eng.Watch(ctx, engine.WatchOptions{})

	// Saved as editors save: a new file renamed over the old, so that the watch never
	// reads it halfway (it would keep the last good version, and say why).
	os.WriteFile(filepath.Join(dir, "hello.lua.new"), tool("bonjour"), 0o644)
	os.Rename(filepath.Join(dir, "hello.lua.new"), filepath.Join(dir, "hello.lua"))
	ev := <-events
	fmt.Println(ev.Kind, ev.Tool)
	r := eng.Call(context.Background(), engine.ToolUse{ID: "toolu_1", Name: "Hello"})
	fmt.Println(r.Block.Content.String())
	// Output:
	// updated Hello
	// bonjour
}

// Run takes the tool_use blocks of one model turn. Calls that are concurrency-safe
// for their input run side by side, the others alone, in order; the results come
// back in the order of the uses, one for each, whatever happens.
func Example_batch() {
	cwd, _ := os.Getwd()
	eng, err := engine.New(engine.Options{
		Loaders: []engine.Loader{luaload.New(luaload.Options{})},
		Cwd:     cwd,
	})
	if err != nil {
		panic(err)
	}
	mustLoad(eng, map[string]string{"add.lua": `return {
  name = "Add",
  prompt = "Adds two numbers.",
  inputSchema = { type = "object", properties = { a = { type = "number" }, b = { type = "number" } }, required = { "a", "b" } },
  isReadOnly = true,
  isConcurrencySafe = true,
  call = function(input) return input.a + input.b end,
}`})
	results := eng.Run(context.Background(), []engine.ToolUse{
		{ID: "toolu_1", Name: "Add", Input: json.RawMessage(`{"a": 1, "b": 2}`)},
		{ID: "toolu_2", Name: "Add", Input: json.RawMessage(`{"a": 40, "b": 2}`)},
		{ID: "toolu_3", Name: "Subtract", Input: json.RawMessage(`{}`)},
	})
	for _, r := range results {
		fmt.Println(r.Block.ToolUseID, r.Block.IsError, r.Block.Content.String())
	}
	// Output:
	// toolu_1 false 3
	// toolu_2 false 42
	// toolu_3 true <tool_use_error>Error: No such tool available: Subtract</tool_use_error>
}

// Permission rules decide first (deny beats ask beats allow); what they leave open
// goes to CanUseTool, where a host asks its user. An "allow always" answer adds
// rules for the rest of the engine's life.
func Example_permissions() {
	dir, err := os.MkdirTemp("", "workspace")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	eng, err := engine.New(engine.Options{
		Loaders: []engine.Loader{luaload.New(luaload.Options{})},
		Roots:   []string{dir},
		Permissions: rules.Settings{
			Deny: []rules.Rule{{Text: "Note(secret)", Source: "project", Root: dir}},
		},
		CanUseTool: func(_ context.Context, req engine.PermissionRequest) (engine.PermissionDecision, error) {
			fmt.Printf("asked: %s (always would add %v)\n", req.Description, req.Suggestions)
			return engine.PermissionDecision{Behavior: rules.Allow, AddRules: req.Suggestions}, nil
		},
	})
	if err != nil {
		panic(err)
	}
	mustLoad(eng, map[string]string{"note.lua": `return {
  name = "Note",
  prompt = "Keeps a note.",
  inputSchema = { type = "object", properties = { text = { type = "string" } }, required = { "text" } },
  description = function(input) return "keep the note " .. input.text end,
  ruleContent = function(input) return input.text end,
  call = function(input) return "kept " .. input.text end,
}`})
	for i, text := range []string{"milk", "milk", "secret"} {
		r := eng.Call(context.Background(), engine.ToolUse{ID: fmt.Sprint("toolu_", i), Name: "Note", Input: json.RawMessage(`{"text": "` + text + `"}`)})
		fmt.Println(r.Block.Content.String())
	}
	// Output:
	// asked: keep the note milk (always would add [Note(milk)])
	// kept milk
	// kept milk
	// Permission to use Note has been denied by the rule "Note(secret)" (project).
}

// A custom host module is a set of Go functions with full control of their Lua
// arguments and results: check arguments with bindings.Args, and return nil plus a
// message for failures the tool should handle.
func Example_customModule() {
	rates := map[string]float64{"EUR": 1.08, "GBP": 1.27}
	currency := &bindings.Module{
		Name: "currency",
		Doc:  "Exchange rates to US dollars.",
		Funcs: map[string]lua.LGFunction{
			"toUSD": func(L *lua.LState) int {
				args := bindings.NewArgs(L, "currency.toUSD")
				amount, code := args.Int(1), args.String(2)
				rate, ok := rates[code]
				if !ok {
					L.Push(lua.LNil)
					L.Push(lua.LString("unknown currency " + code))
					return 2
				}
				L.Push(lua.LNumber(float64(amount) * rate))
				return 1
			},
		},
	}
	cwd, _ := os.Getwd()
	eng, err := engine.New(engine.Options{
		Loaders: []engine.Loader{luaload.New(luaload.Options{Modules: []*bindings.Module{currency}})},
		Cwd:     cwd,
	})
	if err != nil {
		panic(err)
	}
	mustLoad(eng, map[string]string{"convert.lua": `local currency = require("currency")
return {
  name = "Convert",
  prompt = "Converts an amount to US dollars.",
  inputSchema = { type = "object", properties = { amount = { type = "integer" }, code = { type = "string" } }, required = { "amount", "code" } },
  isReadOnly = true,
  call = function(input)
    local usd, err = currency.toUSD(input.amount, input.code)
    if not usd then return nil, err end
    return ("%d %s is %.2f USD"):format(input.amount, input.code, usd)
  end,
}`})
	for _, in := range []string{`{"amount": 100, "code": "EUR"}`, `{"amount": 100, "code": "XYZ"}`} {
		r := eng.Call(context.Background(), engine.ToolUse{ID: "toolu_1", Name: "Convert", Input: json.RawMessage(in)})
		fmt.Println(r.Block.IsError, r.Block.Content.String())
	}
	// Output:
	// false 100 EUR is 108.00 USD
	// true unknown currency XYZ
}

// A host serves its engine's tools over MCP with package mcpserver. Here the client
// is in the same process, connected by in-memory transports; a real host runs
// srv.MCP().Run(ctx, &mcp.StdioTransport{}) or mounts srv.HTTPHandler(opts), with bearer
// tokens for many users (see the example of mcpserver.Server.HTTPHandler).
func Example_serveMCP() {
	cwd, _ := os.Getwd()
	eng, err := engine.New(engine.Options{
		Loaders: []engine.Loader{luaload.New(luaload.Options{})},
		Cwd:     cwd,
	})
	if err != nil {
		panic(err)
	}
	mustLoad(eng, map[string]string{"greet.lua": `return {
  name = "Greet",
  prompt = "Greets someone by name.",
  inputSchema = { type = "object", properties = { name = { type = "string" } }, required = { "name" } },
  isReadOnly = true,
  call = function(input) return "Hello, " .. input.name .. "!" end,
}`})
	srv := mcpserver.New(eng, mcpserver.Options{Name: "example"})
	defer srv.Close()

	ctx := context.Background()
	serverEnd, clientEnd := mcp.NewInMemoryTransports()
	if _, err := srv.MCP().Connect(ctx, serverEnd, nil); err != nil {
		panic(err)
	}
	session, err := mcp.NewClient(&mcp.Implementation{Name: "client"}, nil).Connect(ctx, clientEnd, nil)
	if err != nil {
		panic(err)
	}
	defer session.Close()

	list, err := session.ListTools(ctx, nil)
	if err != nil {
		panic(err)
	}
	for _, t := range list.Tools {
		fmt.Printf("%s (read-only: %v): %s\n", t.Name, t.Annotations.ReadOnlyHint, t.Description)
	}
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "Greet", Arguments: map[string]any{"name": "Ada"}})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// Greet (read-only: true): Greets someone by name.
	// Hello, Ada!
}

// A tool directory may also hold MCP prompts and resources: Lua files whose table
// has kind = "prompt" or kind = "resource". They load, check and reload with the
// tools; GetPrompt and ReadResource serve them (package engine/mcpserver offers them
// to MCP clients).
func Example_promptsAndResources() {
	cwd, _ := os.Getwd()
	eng, err := engine.New(engine.Options{Loaders: []engine.Loader{luaload.New(luaload.Options{})}, Cwd: cwd})
	if err != nil {
		panic(err)
	}
	mustLoad(eng, map[string]string{
		"review.lua": `return {
  kind = "prompt",
  name = "review",
  arguments = { {name = "file", required = true} },
  get = function(args) return "Review " .. args.file .. " for bugs." end,
}`,
		"notes.lua": `return {
  kind = "resource",
  uriTemplate = "notes://{topic}",
  name = "notes",
  mimeType = "text/plain",
  read = function(uri, ctx, params) return "Notes on " .. params.topic end,
}`,
	})
	ctx := context.Background()
	for _, p := range feature.Prompts(eng.Registry()) {
		fmt.Println("prompt", p.Name(), p.Arguments()[0].Name)
	}
	r, err := feature.GetPrompt(ctx, eng, "review", map[string]string{"file": "main.go"})
	if err != nil {
		panic(err)
	}
	fmt.Println(r.Messages[0].Role+":", r.Messages[0].Content.Text)
	_, err = feature.GetPrompt(ctx, eng, "review", nil)
	fmt.Println(err)

	c, err := feature.ReadResource(ctx, eng, "notes://lua")
	if err != nil {
		panic(err)
	}
	fmt.Println(c.URI, c.MIMEType, c.Text)
	// Output:
	// prompt review file
	// user: Review main.go for bugs.
	// prompt review: missing required argument "file"
	// notes://lua text/plain Notes on lua
}
