package luaload

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/luatool/luatool/session/filestate"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/client"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings"
)

// luaContext is the ctx table a Lua tool's validateInput, checkPermissions and call
// receive. It is built once per state and pointed at each call's CallContext in turn,
// so that a call pays for its fields, not for new functions. Scripts get a read-only
// view of it, so nothing a call does to ctx is seen by the next:
//
//	ctx.toolUseId, ctx.cwd, ctx.mode   strings
//	ctx.roots, ctx.tools               lists of strings
//	ctx.deadline                       Unix time in seconds, or nil
//	ctx:progress(data)                 report progress (any JSON value)
//	ctx:aborted()                      true once the call is cancelled or past its deadline
//	ctx:log(level, message, data)      a message to the client's log (at or above
//	                                   the level it asked for) and a line in the
//	                                   call's log; ctx:log(...) with a first
//	                                   argument that is no level is print at info
//	ctx:sample(request)                the client's model's message (call only),
//	                                   or nil, why and its kind (asks.go)
//	ctx:elicit(message, schema)        the client's user's answer to a form, or
//	ctx:elicit{url=, message=}         to a page (call only), or nil, why, kind
//	ctx:summarize(content, prompt)     the client's model's answer to prompt about
//	                                   content (call only; one ctx:sample), or
//	                                   nil, why and its kind
//	ctx:resourceUpdated(uri)           tell MCP clients subscribed to uri that its
//	                                   content changed (call only; feature.ReportChange)
//	ctx.state:get(key), :set(key, v)   the session's shared state (JSON values)
//	ctx.state:update(key, fn)          atomic read-modify-write: fn(old) returns the new value
//	ctx.readFileState:get(path)        what the model was shown of the file, or nil:
//	                                   {hash=, mtime=, offset=, limit=, partial=}
//	ctx:protected(path)                why writing the absolute path would change
//	                                   something protected (engine.CallContext.Protected),
//	                                   or nil
//	ctx:protectedWithin(dir)           the same for a write anywhere inside dir
//	                                   (engine.CallContext.ProtectedWithin)
//
// Paths in readFileState must be absolute; they are cleaned. Tools read the entries
// and never write them: fs.read and fs.lines with record = true and fs.write make
// them, so that no tool can pretend the model read a file.
type luaContext struct {
	vm    *bindings.VM
	table *lua.LTable // the fields, written by bind
	view  *lua.LTable // what scripts get: a read-only view of table
	cc    *engine.CallContext
}

type luaContextKey struct{}

// luaContextFor returns the state's ctx table, pointed at cc.
func luaContextFor(vm *bindings.VM, cc *engine.CallContext) *lua.LTable {
	c, ok := vm.HostValue(luaContextKey{}).(*luaContext)
	if !ok {
		c = newLuaContext(vm)
		vm.SetHostValue(luaContextKey{}, c)
	}
	c.bind(cc)
	return c.view
}

func newLuaContext(vm *bindings.VM) *luaContext {
	L := vm.L
	c := &luaContext{vm: vm, table: L.CreateTable(0, 14)}
	c.view = vm.ReadOnly(c.table, "ctx")
	t := c.table
	// method adds a ctx method to tbl, whose read-only view self is; calling it with a
	// dot instead of a colon is an error that says so, not shifted arguments.
	method := func(tbl, self *lua.LTable, prefix, name string, fn lua.LGFunction) {
		tbl.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			if L.Get(1) != self {
				L.RaiseError("call %s:%s(...) with a colon", prefix, name)
			}
			return fn(L)
		}))
	}
	method(t, c.view, "ctx", "progress", func(L *lua.LState) int {
		v, err := vm.FromLua(L.Get(2))
		if err != nil {
			L.ArgError(1, "progress data must be a JSON value: "+err.Error())
		}
		if c.cc.Progress != nil {
			c.cc.Progress(v)
		}
		return 0
	})
	method(t, c.view, "ctx", "aborted", func(L *lua.LState) int {
		ctx := L.Context()
		L.Push(lua.LBool(ctx != nil && ctx.Err() != nil))
		return 1
	})
	method(t, c.view, "ctx", "log", c.log)
	method(t, c.view, "ctx", "sample", c.sample)
	method(t, c.view, "ctx", "elicit", c.elicit)
	method(t, c.view, "ctx", "summarize", func(L *lua.LState) int {
		a := bindings.NewArgs(L, "ctx:summarize")
		content, prompt := a.String(2), a.String(3)
		c.onlyInCall(L, "ctx:summarize", "ask the host's model")
		var text string
		var err error
		c.blocking(L, "ctx:summarize", func(ctx context.Context) { text, err = c.cc.Summarize(ctx, content, prompt) })
		if err != nil {
			return pushFailure(L, "summarize", err)
		}
		L.Push(lua.LString(text))
		return 1
	})
	protected := func(check func(cc *engine.CallContext, path string) string) lua.LGFunction {
		return func(L *lua.LState) int {
			p := L.CheckString(2)
			if !filepath.IsAbs(p) {
				L.ArgError(1, "absolute path expected, got "+p)
			}
			if why := check(c.cc, p); why != "" {
				L.Push(lua.LString(why))
				return 1
			}
			L.Push(lua.LNil)
			return 1
		}
	}
	method(t, c.view, "ctx", "resourceUpdated", c.resourceUpdated)
	method(t, c.view, "ctx", "protected", protected((*engine.CallContext).Protected))
	method(t, c.view, "ctx", "protectedWithin", protected((*engine.CallContext).ProtectedWithin))
	state := L.CreateTable(0, 2)
	stateView := vm.ReadOnly(state, "ctx.state")
	method(state, stateView, "ctx.state", "get", func(L *lua.LState) int {
		key := L.CheckString(2)
		if c.cc.State == nil {
			L.Push(lua.LNil)
			return 1
		}
		v, ok, err := c.cc.State.Get(key)
		if err != nil {
			L.RaiseError("ctx.state:get: %s", err.Error())
		}
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
	method(state, stateView, "ctx.state", "set", func(L *lua.LState) int {
		key := L.CheckString(2)
		v, err := vm.FromLua(L.Get(3))
		if err != nil {
			L.ArgError(3, "state values must be JSON values: "+err.Error())
		}
		if c.cc.State == nil {
			L.RaiseError("ctx.state:set: this host keeps no state")
		}
		if err := c.cc.State.Set(key, v); err != nil {
			L.RaiseError("ctx.state:set: %s", err.Error())
		}
		return 0
	})
	method(state, stateView, "ctx.state", "update", func(L *lua.LState) int {
		key := L.CheckString(2)
		fn := L.CheckFunction(3)
		if c.cc.State == nil {
			L.RaiseError("ctx.state:update: this host keeps no state")
		}
		v, err := c.cc.State.Update(key, func(old any, ok bool) (any, error) {
			lv := lua.LValue(lua.LNil)
			if ok {
				var err error
				if lv, err = vm.ToLua(old); err != nil {
					return nil, err
				}
			}
			// An error raised by fn unwinds through Update, which has then written nothing.
			L.Push(fn)
			L.Push(lv)
			L.Call(1, 1)
			nv := L.Get(-1)
			L.Pop(1)
			v, err := vm.FromLua(nv)
			if err != nil {
				return nil, fmt.Errorf("the function returned a value that is not JSON: %w", err)
			}
			return v, nil
		})
		if err != nil {
			L.RaiseError("ctx.state:update: %s", err.Error())
		}
		lv, err := vm.ToLua(v)
		if err != nil {
			L.RaiseError("ctx.state:update: %s", err.Error())
		}
		L.Push(lv)
		return 1
	})
	t.RawSetString("state", stateView)
	t.RawSetString("readFileState", c.newFileStateTable(method))
	return c
}

// newFileStateTable builds ctx.readFileState, adding its method with method.
func (c *luaContext) newFileStateTable(method func(tbl, self *lua.LTable, prefix, name string, fn lua.LGFunction)) *lua.LTable {
	const prefix = "ctx.readFileState"
	L := c.vm.L
	files := L.CreateTable(0, 1)
	view := c.vm.ReadOnly(files, prefix)
	method(files, view, prefix, "get", func(L *lua.LState) int {
		p := L.CheckString(2)
		if !filepath.IsAbs(p) {
			L.ArgError(1, "absolute path expected, got "+p)
		}
		if c.cc.Files == nil {
			L.Push(lua.LNil)
			return 1
		}
		e, ok := c.cc.Files.Get(filepath.Clean(p))
		if !ok {
			L.Push(lua.LNil)
			return 1
		}
		L.Push(fileStateToLua(L, e))
		return 1
	})
	return view
}

// fileStateToLua converts an entry for Lua.
func fileStateToLua(L *lua.LState, e filestate.Entry) *lua.LTable {
	t := L.CreateTable(0, 5)
	t.RawSetString("hash", lua.LString(e.Hash))
	t.RawSetString("mtime", lua.LNumber(e.Mtime))
	if e.Offset != 0 {
		t.RawSetString("offset", lua.LNumber(e.Offset))
	}
	if e.Limit != 0 {
		t.RawSetString("limit", lua.LNumber(e.Limit))
	}
	t.RawSetString("partial", lua.LBool(e.Partial))
	return t
}

// bind points the table at cc and sets its fields.
func (c *luaContext) bind(cc *engine.CallContext) {
	c.cc = cc
	t := c.table
	c.setString("toolUseId", cc.ToolUseID)
	c.setString("cwd", cc.Cwd)
	c.setString("mode", string(cc.Mode))
	c.setList("roots", cc.Roots)
	c.setList("tools", cc.Tools)
	if cc.Deadline.IsZero() {
		t.RawSetString("deadline", lua.LNil)
	} else if d := lua.LNumber(float64(cc.Deadline.UnixMilli()) / 1000); t.RawGetString("deadline") != d {
		// Calls made within the same millisecond share the boxed number.
		t.RawSetString("deadline", d)
	}
}

// setString sets field name to s unless it holds s already (boxing a string for Lua
// allocates).
func (c *luaContext) setString(name, s string) {
	if cur, ok := c.table.RawGetString(name).(lua.LString); ok && string(cur) == s {
		return
	}
	c.table.RawSetString(name, lua.LString(s))
}

// setList sets field name to a list of ss, reusing the list already there when a
// call has not changed it: comparing costs less than building.
func (c *luaContext) setList(name string, ss []string) {
	if cur, ok := c.table.RawGetString(name).(*lua.LTable); ok && listEquals(cur, ss) {
		return
	}
	lv, _ := c.vm.ToLua(stringsToAny(ss))
	c.table.RawSetString(name, lv)
}

// listEquals compares a list the context set (scripts cannot change it: ctx is
// read-only) with ss.
func listEquals(t *lua.LTable, ss []string) bool {
	if t.Len() != len(ss) {
		return false
	}
	for i, s := range ss {
		if v, ok := t.RawGetInt(i + 1).(lua.LString); !ok || string(v) != s {
			return false
		}
	}
	return true
}

// acting reports whether c runs the member of a tool that acts (engine.Member.Acts):
// a question, or code outside any call, may not do what only the call may.
func acting(c *bindings.Call) bool {
	if c == nil {
		return false
	}
	m, ok := engine.LookupMember(c.Entry)
	return ok && m.Acts
}

// pushFailure returns nil, what failed and why, and its kind (client.Kind:
// "unavailable", "declined", "malformed" or "failed") to a tool.
func pushFailure(L *lua.LState, what string, err error) int {
	L.Push(lua.LNil)
	L.Push(lua.LString(what + ": " + err.Error()))
	L.Push(lua.LString(client.Kind(err)))
	return 3
}
