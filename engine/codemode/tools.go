package codemode

import (
	"encoding/json"
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/internal/jsonvalue"
)

// toolsModule is the script's tools module:
//
//	tools.call(name, input) -- runs one call through the pipeline; returns
//	                           {text=, is_error=, data=, stage=, id=}
//	tools.list()            -- the tools a script may call: {name, searchHint, inputSchema}
//
// It is not the tools module of Lua tools, which reveals definitions and cannot call.
func toolsModule() *bindings.Module {
	return &bindings.Module{
		Name: "tools",
		Doc:  "the tools a script calls, through the engine's pipeline",
		Funcs: map[string]lua.LGFunction{
			"call": luaCall,
			"list": luaList,
		},
	}
}

// luaCall is tools.call(name [, input]). An inner call that fails or is denied is a
// result with is_error set, for the script to look at; only a script past its cap
// on calls, or an input that is not a JSON object, raises.
func luaCall(L *lua.LState) int {
	const fn = "tools.call"
	args := bindings.NewArgs(L, fn)
	name := args.String(1)
	var input lua.LValue = lua.LNil
	if L.GetTop() >= 2 {
		input = L.Get(2)
	}
	if input != lua.LNil {
		if _, ok := input.(*lua.LTable); !ok {
			args.Error(2, fmt.Sprintf("table expected, got %s", input.Type()))
		}
	}
	s := scriptOf(L)
	if len(s.calls) >= s.maxCalls {
		L.RaiseError("%s: the script has made %d tool calls, the most one script may make", fn, s.maxCalls)
	}
	raw, err := encodeInput(bindings.VMOf(L), input)
	if err != nil {
		args.Error(2, err.Error())
	}
	r := s.cc.CallTool(L.Context(), name, raw)
	s.calls = append(s.calls, call{name: name, isError: r.Block.IsError})
	out := map[string]any{
		"id":       r.Block.ToolUseID,
		"text":     r.Block.Content.String(),
		"is_error": r.Block.IsError,
		"stage":    string(r.Stage),
	}
	vm := bindings.VMOf(L)
	lv, err := vm.ToLua(out)
	if err != nil {
		L.RaiseError("%s: %v", fn, err)
	}
	if r.Data != nil {
		lv.(*lua.LTable).RawSetString("data", dataValue(vm, r.Data))
	}
	L.Push(lv)
	return 1
}

// dataValue is a call's data for the script: as it is when it is made of JSON
// values (a Lua tool's always is), else through its JSON encoding (a Go tool's own
// types); nil when it has none (the text still says what the call returned).
func dataValue(vm *bindings.VM, data any) lua.LValue {
	if lv, err := vm.ToLua(data); err == nil {
		return lv
	}
	plain, err := toJSON(data)
	if err != nil {
		return lua.LNil
	}
	lv, err := vm.ToLua(plain)
	if err != nil {
		return lua.LNil
	}
	return lv
}

// encodeInput turns a script's input table into the JSON of a tool_use input. No
// table, or an empty one, is {}.
func encodeInput(vm *bindings.VM, input lua.LValue) (json.RawMessage, error) {
	if input == lua.LNil {
		return json.RawMessage("{}"), nil
	}
	v, err := vm.FromLua(input)
	if err != nil {
		return nil, err
	}
	if a, ok := v.([]any); ok && len(a) == 0 {
		return json.RawMessage("{}"), nil
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, fmt.Errorf("the input must be a table with string keys, not a list")
	}
	return jsonvalue.Encode(v)
}

// toJSON makes plain JSON values of a tool's data, which a Go tool may give as its
// own types.
func toJSON(v any) (any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return jsonvalue.Decode(raw)
}

// luaList is tools.list(): the tools of the snapshot serving the call a script may
// call (all but LuaScript), in name order, with their search hints and schemas.
func luaList(L *lua.LState) int {
	s := scriptOf(L)
	out := []any{}
	for _, t := range s.cc.Registry().Tools() {
		if t.Name() == Name {
			continue
		}
		schema, err := toJSON(t.InputSchema())
		if err != nil {
			L.RaiseError("tools.list: inputSchema of %s: %v", t.Name(), err)
		}
		out = append(out, map[string]any{"name": t.Name(), "searchHint": t.SearchHint(), "inputSchema": schema})
	}
	lv, err := bindings.VMOf(L).ToLua(out)
	if err != nil {
		L.RaiseError("tools.list: %v", err)
	}
	L.Push(lv)
	return 1
}

// callable returns the tools a script may call, of the names of a snapshot.
func callable(names []string) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		if n != Name {
			out = append(out, n)
		}
	}
	return out
}
