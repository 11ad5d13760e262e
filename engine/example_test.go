package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing/fstest"
	"time"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/engine"
)

// A tool is a Lua file returning a table. Load a directory of them and call one
// through the whole pipeline: schema validation, defaults, permissions, call and
// result mapping.
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
	eng, err := engine.New(engine.Options{})
	if err != nil {
		panic(err)
	}
	if diags := eng.Load(engine.Source{Name: "tools", FS: tools}); engine.HasErrors(diags) {
		panic(fmt.Sprint(diags))
	}

	r := eng.Call(context.Background(), engine.ToolUse{ID: "toolu_1", Name: "Greet", Input: json.RawMessage(`{"name": "Ada", "times": "2"}`)})
	fmt.Println(r.Block.Content.String())

	r = eng.Call(context.Background(), engine.ToolUse{ID: "toolu_2", Name: "Greet", Input: json.RawMessage(`{}`)})
	fmt.Println(r.Block.IsError, r.Block.Content.String())
	// Output:
	// Hello, Ada! Hello, Ada!
	// true <tool_use_error>InputValidationError: Greet failed due to the following issue(s):
	// The required parameter `name` is missing</tool_use_error>
}

// Go-native tools go through the same defaults and pipeline as Lua tools. This one
// leaves out IsReadOnly and CheckPermissions, so it is treated as a tool that writes:
// the engine asks CanUseTool before calling it.
func Example_goTool() {
	upper := engine.ToolDef{
		Name: "Upper",
		InputSchema: map[string]any{
			"type":       "object",
			"properties": map[string]any{"text": map[string]any{"type": "string"}},
			"required":   []any{"text"},
		},
		Prompt: func(context.Context, engine.PromptOptions) (string, error) {
			return "Upper-cases a text.", nil
		},
		Call: func(_ context.Context, input map[string]any, _ *engine.CallContext) (*engine.ToolResult, error) {
			return &engine.ToolResult{Data: strings.ToUpper(input["text"].(string))}, nil
		},
	}
	eng, err := engine.New(engine.Options{
		Tools: []engine.ToolDef{upper},
		CanUseTool: func(_ context.Context, req engine.PermissionRequest) (engine.PermissionDecision, error) {
			fmt.Println("asked about", req.Tool.Name())
			return engine.PermissionDecision{Behavior: engine.Allow}, nil
		},
	})
	if err != nil {
		panic(err)
	}
	r := eng.Call(context.Background(), engine.ToolUse{ID: "toolu_1", Name: "Upper", Input: json.RawMessage(`{"text": "quiet"}`)})
	fmt.Println(r.Block.Content.String())
	// Output:
	// asked about Upper
	// QUIET
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
	eng, err := engine.New(engine.Options{Modules: []*bindings.Module{inventory}})
	if err != nil {
		panic(err)
	}
	if diags := eng.Load(engine.Source{Name: "tools", FS: tools}); engine.HasErrors(diags) {
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
	eng, err := engine.New(engine.Options{})
	if err != nil {
		panic(err)
	}
	eng.Load(engine.DirSource(dir))
	events := make(chan engine.Event, 10)
	eng.Subscribe(func(ev engine.Event) { events <- ev })

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go eng.Watch(ctx, engine.WatchOptions{})
	time.Sleep(100 * time.Millisecond) // let the watch start

	os.WriteFile(filepath.Join(dir, "hello.lua"), tool("bonjour"), 0o644)
	ev := <-events
	fmt.Println(ev.Kind, ev.Tool)
	r := eng.Call(context.Background(), engine.ToolUse{ID: "toolu_1", Name: "Hello"})
	fmt.Println(r.Block.Content.String())
	// Output:
	// updated Hello
	// bonjour
}
