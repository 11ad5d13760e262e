package luaload

import (
	"context"
	"encoding/json"
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/internal/jsonvalue"
)

// toolsModule builds the loader's tools module. It only reveals definitions and
// records discovery; it cannot call tools. Its functions read the registry snapshot
// that serves the running call, so they are available to members that have a call
// context (validateInput, checkPermissions, call), and refuse elsewhere:
//
//	tools.list()          -- array of {name, searchHint, deferred, prompt, inputSchema}
//	tools.discover(names) -- marks the named tools discovered; returns the names marked
func toolsModule() *bindings.Module {
	return &bindings.Module{
		Name: ToolsModuleName,
		Doc:  "the tools on offer: their definitions, and discovery of deferred tools",
		Funcs: map[string]lua.LGFunction{
			"list":     luaListTools,
			"discover": luaDiscoverTools,
		},
	}
}

// callOf returns the call context of the member running on L's state, raising an
// error naming fn when it has none.
func callOf(L *lua.LState, fn string) *engine.CallContext {
	cc, _ := bindings.VMOf(L).HostValue(currentCall{}).(*engine.CallContext)
	if cc == nil || cc.Registry() == nil {
		L.RaiseError("%s is available in validateInput, checkPermissions and call only", fn)
	}
	return cc
}

// luaListTools is tools.list(): every tool of the call's snapshot, in name order,
// with its model-facing description (prompt) and input schema.
func luaListTools(L *lua.LState) int {
	cc := callOf(L, ToolsModuleName+".list")
	ctx := L.Context()
	reg := cc.Registry()
	out := make([]any, 0, len(reg.Tools()))
	var err error
	// The prompts are other tools' members, run in slots of their own: this call's
	// is given back meanwhile, so that a principal's calls never wait for themselves.
	if werr := bindings.Blocking(L, func() { out, err = listTools(ctx, reg, out) }); werr != nil {
		L.RaiseError("tools.list: stopped: %v", werr)
	}
	if err != nil {
		L.RaiseError("tools.list: %v", err)
	}
	lv, err := bindings.VMOf(L).ToLua(out)
	if err != nil {
		L.RaiseError("tools.list: %v", err)
	}
	L.Push(lv)
	return 1
}

// listTools appends the definitions tools.list returns to out.
func listTools(ctx context.Context, reg *engine.Registry, out []any) ([]any, error) {
	for _, t := range reg.Tools() {
		prompt, err := t.Prompt(ctx, engine.PromptOptions{Tools: reg.Names()})
		if err != nil {
			return nil, fmt.Errorf("prompt of %s: %w", t.Name(), err)
		}
		schema, err := jsonValue(t.InputSchema())
		if err != nil {
			return nil, fmt.Errorf("inputSchema of %s: %w", t.Name(), err)
		}
		out = append(out, map[string]any{
			"name":        t.Name(),
			"searchHint":  t.SearchHint(),
			"deferred":    t.Deferred(),
			"prompt":      prompt,
			"inputSchema": schema,
		})
	}
	return out, nil
}

// luaDiscoverTools is tools.discover(names): each name (or alias) of a tool in the
// call's snapshot marks that tool discovered; other names are ignored. It returns the
// tool names marked, in the order given, without repeats.
func luaDiscoverTools(L *lua.LState) int {
	args := bindings.NewArgs(L, ToolsModuleName+".discover")
	list := args.Table(1)
	cc := callOf(L, ToolsModuleName+".discover")
	reg := cc.Registry()
	marked := L.NewTable()
	seen := map[string]bool{}
	for i := 1; i <= list.Len(); i++ {
		s, ok := list.RawGetInt(i).(lua.LString)
		if !ok {
			args.Error(1, fmt.Sprintf("names[%d] is %s, not a string", i, list.RawGetInt(i).Type()))
		}
		t, ok := reg.Lookup(string(s))
		if !ok || seen[t.Name()] {
			continue
		}
		seen[t.Name()] = true
		cc.Discover(t.Name())
		marked.Append(lua.LString(t.Name()))
	}
	L.Push(marked)
	return 1
}

// jsonValue turns a schema as declared (a Go tool may use []string and other Go
// types) into plain JSON values.
func jsonValue(v any) (any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return jsonvalue.Decode(raw)
}
