package engine

import (
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings"
)

// luaContext is the ctx table a Lua tool's validateInput, checkPermissions and call
// receive. It is built once per state and pointed at each call's CallContext in turn,
// so that a call pays for its fields, not for new functions:
//
//	ctx.toolUseId, ctx.cwd, ctx.mode   strings
//	ctx.roots, ctx.tools               lists of strings
//	ctx.deadline                       Unix time in seconds, or nil
//	ctx:progress(data)                 report progress (any JSON value)
//	ctx:aborted()                      true once the call is cancelled or past its deadline
//	ctx:log(...)                       like print: a line in the call's log
//	ctx.state:get(key), :set(key, v)   the session's shared state (JSON values)
type luaContext struct {
	vm    *bindings.VM
	table *lua.LTable
	cc    *CallContext
	// members are the methods and the state object, set again on every bind so that
	// a call that overwrote one does not leave it overwritten for the next.
	members []ctxMember
	// roots and tools are the slices last converted, to convert them again only when
	// they change.
	roots, tools []string
}

type ctxMember struct {
	name  string
	value lua.LValue
}

type luaContextKey struct{}

// luaContextFor returns the state's ctx table, pointed at cc.
func luaContextFor(vm *bindings.VM, cc *CallContext) *lua.LTable {
	c, ok := vm.HostValue(luaContextKey{}).(*luaContext)
	if !ok {
		c = newLuaContext(vm)
		vm.SetHostValue(luaContextKey{}, c)
	}
	c.bind(cc)
	return c.table
}

func newLuaContext(vm *bindings.VM) *luaContext {
	L := vm.L
	c := &luaContext{vm: vm, table: L.CreateTable(0, 12)}
	t := c.table
	// method adds a ctx method; calling it with a dot instead of a colon is an error
	// that says so, not a silently shifted argument list.
	method := func(tbl *lua.LTable, prefix, name string, fn lua.LGFunction) {
		tbl.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			if L.Get(1) != tbl {
				L.RaiseError("call %s:%s(...) with a colon", prefix, name)
			}
			return fn(L)
		}))
	}
	method(t, "ctx", "progress", func(L *lua.LState) int {
		v, err := vm.FromLua(L.Get(2))
		if err != nil {
			L.ArgError(1, "progress data must be a JSON value: "+err.Error())
		}
		if c.cc.Progress != nil {
			c.cc.Progress(v)
		}
		return 0
	})
	method(t, "ctx", "aborted", func(L *lua.LState) int {
		ctx := L.Context()
		L.Push(lua.LBool(ctx != nil && ctx.Err() != nil))
		return 1
	})
	method(t, "ctx", "log", func(L *lua.LState) int {
		parts := make([]string, 0, L.GetTop())
		for i := 2; i <= L.GetTop(); i++ {
			parts = append(parts, L.ToStringMeta(L.Get(i)).String())
		}
		vm.Log(strings.Join(parts, "\t"))
		return 0
	})
	state := L.CreateTable(0, 2)
	method(state, "ctx.state", "get", func(L *lua.LState) int {
		key := L.CheckString(2)
		if c.cc.State == nil {
			L.Push(lua.LNil)
			return 1
		}
		v, ok := c.cc.State.Get(key)
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
	})
	method(state, "ctx.state", "set", func(L *lua.LState) int {
		key := L.CheckString(2)
		v, err := vm.FromLua(L.Get(3))
		if err != nil {
			L.ArgError(3, "state values must be JSON values: "+err.Error())
		}
		if c.cc.State == nil {
			L.RaiseError("ctx.state:set: this host keeps no state")
		}
		c.cc.State.Set(key, v)
		return 0
	})
	t.RawSetString("state", state)
	t.ForEach(func(k, v lua.LValue) { c.members = append(c.members, ctxMember{k.String(), v}) })
	return c
}

// bind points the table at cc and sets its fields.
func (c *luaContext) bind(cc *CallContext) {
	c.cc = cc
	t := c.table
	for _, m := range c.members {
		t.RawSetString(m.name, m.value)
	}
	t.RawSetString("toolUseId", lua.LString(cc.ToolUseID))
	t.RawSetString("cwd", lua.LString(cc.Cwd))
	t.RawSetString("mode", lua.LString(string(cc.Mode)))
	if !sameStrings(c.roots, cc.Roots) {
		c.roots = cc.Roots
		t.RawSetString("roots", stringList(c.vm, cc.Roots))
	}
	if !sameStrings(c.tools, cc.Tools) {
		c.tools = cc.Tools
		t.RawSetString("tools", stringList(c.vm, cc.Tools))
	}
	if cc.Deadline.IsZero() {
		t.RawSetString("deadline", lua.LNil)
	} else {
		t.RawSetString("deadline", lua.LNumber(float64(cc.Deadline.UnixMilli())/1000))
	}
}

// sameStrings reports whether a and b are the same slice (the engine reuses them
// between calls), so that the common case costs no comparison of elements.
func sameStrings(a, b []string) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

func stringList(vm *bindings.VM, ss []string) lua.LValue {
	lv, _ := vm.ToLua(stringsToAny(ss))
	return lv
}
