package bindings

import (
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// The isolation model. A state's base globals (the libraries of the allow-list) are
// never reachable by scripts as a table: each program runs in an environment of its
// own whose misses fall through to them, and _G names that environment. While the
// main chunk runs, the environment is writable, so a tool file may define global
// helpers. Then it is locked: from the first call on, assigning a global is an error,
// and so is any change to a library table, a module table or the string metatable.
// Nothing one call does to globals or libraries can be seen by the next call on the
// same state; locals of the tool file are the only state a state keeps (a per-state
// cache, as module variables are per worker in OpenResty).
//
// Read-only tables are proxies: an empty table whose metatable reads from the real
// one and refuses writes, protected by __metatable. rawset, table.insert, table.remove
// and table.sort refuse proxies; rawget, next and pairs see through them.

// lockedMeta is the value getmetatable returns for a locked table or a string.
const lockedMeta = "locked"

// ReadOnly returns a read-only view of t: reads see t (and later changes the host
// makes to it), writes raise an error naming what. The view cannot be unlocked from
// Lua.
func (vm *VM) ReadOnly(t *lua.LTable, what string) *lua.LTable {
	L := vm.L
	proxy := L.NewTable()
	mt := L.CreateTable(0, 3)
	mt.RawSetString("__index", t)
	mt.RawSetString("__newindex", L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("%s is read-only", what)
		return 0
	}))
	mt.RawSetString("__metatable", lua.LString(lockedMeta))
	proxy.Metatable = mt
	vm.locked[proxy] = t
	return proxy
}

// backing returns the table behind a read-only view, or nil for any other value.
func (vm *VM) backing(v lua.LValue) *lua.LTable {
	if t, ok := v.(*lua.LTable); ok {
		return vm.locked[t]
	}
	return nil
}

// lockLibraries replaces each library table in the base globals with a read-only
// view, guards the raw functions, and locks the string metatable.
func (vm *VM) lockLibraries() {
	L := vm.L
	g := L.G.Global
	for _, name := range []string{"string", "table", "math", "os", "coroutine"} {
		if t, ok := g.RawGetString(name).(*lua.LTable); ok {
			g.RawSetString(name, vm.ReadOnly(t, "the "+name+" library"))
		}
	}
	// gopher-lua makes the string library its own metatable for strings, with
	// __index naming itself, so ("").__index would hand a script the library table.
	// __index becomes a function that looks methods up without exposing the table.
	if mt, ok := L.GetMetatable(lua.LString("")).(*lua.LTable); ok {
		mt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
			if k, ok := L.Get(2).(lua.LString); ok && strings.HasPrefix(string(k), "__") {
				L.Push(lua.LNil)
				return 1
			}
			L.Push(mt.RawGet(L.Get(2)))
			return 1
		}))
		mt.RawSetString("__metatable", lua.LString(lockedMeta))
	}
	// _G is set per program to its own environment; the base table has none, so
	// that nothing leads back to it.
	g.RawSetString("_G", lua.LNil)

	rawget := g.RawGetString("rawget").(*lua.LFunction).GFunction
	g.RawSetString("rawget", L.NewFunction(func(L *lua.LState) int {
		if b := vm.backing(L.Get(1)); b != nil {
			L.Push(b.RawGet(L.CheckAny(2)))
			return 1
		}
		return rawget(L)
	}))
	rawset := g.RawGetString("rawset").(*lua.LFunction).GFunction
	g.RawSetString("rawset", L.NewFunction(func(L *lua.LState) int {
		vm.refuseLocked(L, 1, "rawset")
		return rawset(L)
	}))
	next := g.RawGetString("next").(*lua.LFunction).GFunction
	seeThrough := func(L *lua.LState) int {
		if b := vm.backing(L.Get(1)); b != nil {
			L.Replace(1, b)
		}
		return next(L)
	}
	g.RawSetString("next", L.NewFunction(seeThrough))
	pairs := g.RawGetString("pairs").(*lua.LFunction)
	iterate := L.NewFunction(seeThrough)
	g.RawSetString("pairs", L.NewFunction(func(L *lua.LState) int {
		if vm.backing(L.Get(1)) != nil {
			L.Push(iterate)
			L.Push(L.Get(1))
			L.Push(lua.LNil)
			return 3
		}
		L.Push(pairs)
		L.Push(L.Get(1))
		L.Call(1, 3)
		return 3
	}))
	if tbl, ok := vm.locked[g.RawGetString("table").(*lua.LTable)]; ok {
		for _, name := range []string{"insert", "remove", "sort"} {
			orig := tbl.RawGetString(name).(*lua.LFunction).GFunction
			name := name
			tbl.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
				vm.refuseLocked(L, 1, "table."+name)
				return orig(L)
			}))
		}
	}
}

func (vm *VM) refuseLocked(L *lua.LState, n int, fn string) {
	if vm.backing(L.Get(n)) != nil {
		NewArgs(L, fn).Error(n, "the table is read-only")
	}
}

// newEnvironment makes a program's global environment: writable, falling back to the
// base globals, with _G naming itself.
func (vm *VM) newEnvironment() *lua.LTable {
	L := vm.L
	env := L.CreateTable(0, 8)
	mt := L.CreateTable(0, 2)
	mt.RawSetString("__index", L.G.Global)
	mt.RawSetString("__metatable", lua.LString(lockedMeta))
	env.Metatable = mt
	env.RawSetString("_G", env)
	return env
}

// lockEnvironment ends the load of a program: the globals it defined move to a
// backing table and env, which every function of the program holds as its
// environment, becomes a read-only view of them.
func (vm *VM) lockEnvironment(env *lua.LTable) {
	L := vm.L
	defined := L.CreateTable(0, 8)
	env.ForEach(func(k, v lua.LValue) { defined.RawSet(k, v) })
	defined.Metatable = env.Metatable
	var keys []lua.LValue
	env.ForEach(func(k, _ lua.LValue) { keys = append(keys, k) })
	for _, k := range keys {
		env.RawSet(k, lua.LNil)
	}
	mt := L.CreateTable(0, 3)
	mt.RawSetString("__index", defined)
	mt.RawSetString("__newindex", L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("cannot assign global '%s': globals are read-only once the tool is loaded (use a local, or ctx.state to keep values)", L.ToStringMeta(L.Get(2)).String())
		return 0
	}))
	mt.RawSetString("__metatable", lua.LString(lockedMeta))
	env.Metatable = mt
	vm.locked[env] = defined
}
