package engine

import (
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings"
)

// newLuaContext builds the ctx table a Lua tool's validateInput, checkPermissions and
// call receive:
//
//	ctx.toolUseId, ctx.cwd, ctx.mode   strings
//	ctx.roots, ctx.tools               lists of strings
//	ctx.deadline                       Unix time in seconds, or nil
//	ctx:progress(data)                 report progress (any JSON value)
//	ctx:aborted()                      true once the call is cancelled or past its deadline
//	ctx:log(...)                       like print: a line in the call's log
//	ctx.state:get(key), :set(key, v)   the session's shared state (JSON values)
func newLuaContext(vm *bindings.VM, cc *CallContext) *lua.LTable {
	L := vm.L
	t := L.CreateTable(0, 12)
	t.RawSetString("toolUseId", lua.LString(cc.ToolUseID))
	t.RawSetString("cwd", lua.LString(cc.Cwd))
	t.RawSetString("mode", lua.LString(string(cc.Mode)))
	t.RawSetString("roots", stringList(vm, cc.Roots))
	t.RawSetString("tools", stringList(vm, cc.Tools))
	if !cc.Deadline.IsZero() {
		t.RawSetString("deadline", lua.LNumber(float64(cc.Deadline.UnixMilli())/1000))
	}
	// method wraps a ctx method so that calling it with a dot instead of a colon is an
	// error that says so, not a silently shifted argument list.
	method := func(name string, fn lua.LGFunction) {
		t.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			if L.Get(1) != t {
				L.RaiseError("call ctx:%s(...) with a colon", name)
			}
			return fn(L)
		}))
	}
	method("progress", func(L *lua.LState) int {
		v, err := vm.FromLua(L.Get(2))
		if err != nil {
			L.ArgError(1, "progress data must be a JSON value: "+err.Error())
		}
		if cc.Progress != nil {
			cc.Progress(v)
		}
		return 0
	})
	method("aborted", func(L *lua.LState) int {
		ctx := L.Context()
		L.Push(lua.LBool(ctx != nil && ctx.Err() != nil))
		return 1
	})
	method("log", func(L *lua.LState) int {
		parts := make([]string, 0, L.GetTop())
		for i := 2; i <= L.GetTop(); i++ {
			parts = append(parts, L.ToStringMeta(L.Get(i)).String())
		}
		vm.Log(strings.Join(parts, "\t"))
		return 0
	})
	state := L.CreateTable(0, 2)
	state.RawSetString("get", L.NewFunction(func(L *lua.LState) int {
		key := L.CheckString(2)
		if cc.State == nil {
			L.Push(lua.LNil)
			return 1
		}
		v, ok := cc.State.Get(key)
		if !ok {
			L.Push(lua.LNil)
			return 1
		}
		lv, err := vm.ToLua(v)
		if err != nil {
			L.RaiseError("ctx.state:get: %s", err.Error())
		}
		L.Push(lv)
		return 1
	}))
	state.RawSetString("set", L.NewFunction(func(L *lua.LState) int {
		key := L.CheckString(2)
		v, err := vm.FromLua(L.Get(3))
		if err != nil {
			L.ArgError(3, "state values must be JSON values: "+err.Error())
		}
		if cc.State == nil {
			L.RaiseError("ctx.state:set: this host keeps no state")
		}
		cc.State.Set(key, v)
		return 0
	}))
	t.RawSetString("state", state)
	return t
}

func stringList(vm *bindings.VM, ss []string) lua.LValue {
	lv, _ := vm.ToLua(stringsToAny(ss))
	return lv
}
