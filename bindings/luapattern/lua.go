package luapattern

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"
)

// StringFunctions returns Lua's string.find, string.match, string.gmatch and
// string.gsub built on m, by name, for a host to install in its string library in
// place of gopher-lua's. They take the calling state's context (LState.Context) for
// cancellation, and raise Lua errors with Lua 5.1's messages.
func StringFunctions(m Matcher) map[string]lua.LGFunction {
	return map[string]lua.LGFunction{
		"find":   luaFind(m),
		"match":  luaMatch(m),
		"gmatch": luaGmatch(m),
		"gsub":   luaGsub(m),
	}
}

// raise raises err as a Lua error with the caller's location, as gopher-lua's own
// library functions do.
func raise(L *lua.LState, err error) {
	L.RaiseError("%s", err.Error())
}

// pushCaptures pushes captures as Lua values and returns how many it pushed.
func pushCaptures(L *lua.LState, caps []Capture) int {
	for _, c := range caps {
		if c.IsPosition() {
			L.Push(lua.LNumber(c.Pos))
		} else {
			L.Push(lua.LString(c.Text))
		}
	}
	return len(caps)
}

func luaFind(m Matcher) lua.LGFunction {
	return func(L *lua.LState) int {
		s, p := L.CheckString(1), L.CheckString(2)
		r, err := m.Find(L.Context(), s, p, L.OptInt(3, 1), lua.LVAsBool(L.Get(4)))
		if err != nil {
			raise(L, err)
		}
		if r == nil {
			L.Push(lua.LNil)
			return 1
		}
		caps, err := r.Captures()
		if err != nil {
			raise(L, err)
		}
		L.Push(lua.LNumber(r.Start + 1))
		L.Push(lua.LNumber(r.End))
		return 2 + pushCaptures(L, caps)
	}
}

func luaMatch(m Matcher) lua.LGFunction {
	return func(L *lua.LState) int {
		s, p := L.CheckString(1), L.CheckString(2)
		r, err := m.Match(L.Context(), s, p, L.OptInt(3, 1))
		if err != nil {
			raise(L, err)
		}
		if r == nil {
			L.Push(lua.LNil)
			return 1
		}
		vals, err := r.Values()
		if err != nil {
			raise(L, err)
		}
		return pushCaptures(L, vals)
	}
}

func luaGmatch(m Matcher) lua.LGFunction {
	return func(L *lua.LState) int {
		it := m.Gmatch(L.CheckString(1), L.CheckString(2))
		L.Push(L.NewFunction(func(L *lua.LState) int {
			r, err := it.Next(L.Context())
			if err != nil {
				raise(L, err)
			}
			if r == nil {
				return 0
			}
			vals, err := r.Values()
			if err != nil {
				raise(L, err)
			}
			return pushCaptures(L, vals)
		}))
		return 1
	}
}

func luaGsub(m Matcher) lua.LGFunction {
	return func(L *lua.LState) int {
		s, p := L.CheckString(1), L.CheckString(2)
		n := L.OptInt(4, AllMatches)
		var out string
		var count int
		var err error
		switch repl := L.Get(3).(type) {
		case lua.LString, lua.LNumber:
			out, count, err = m.Gsub(L.Context(), s, p, lua.LVAsString(repl), n)
		case *lua.LTable:
			out, count, err = m.GsubFunc(L.Context(), s, p, tableReplacer(L, repl), n)
		case *lua.LFunction:
			out, count, err = m.GsubFunc(L.Context(), s, p, funcReplacer(L, repl), n)
		default:
			L.ArgError(3, "string/function/table expected")
		}
		if err != nil {
			raise(L, err)
		}
		L.Push(lua.LString(out))
		L.Push(lua.LNumber(count))
		return 2
	}
}

func tableReplacer(L *lua.LState, t *lua.LTable) ReplaceFunc {
	return func(r *Result) (string, bool, error) {
		c, err := r.Capture(1)
		if err != nil {
			return "", false, err
		}
		var key lua.LValue = lua.LString(c.Text)
		if c.IsPosition() {
			key = lua.LNumber(c.Pos)
		}
		return replacement(L.GetTable(t, key))
	}
}

func funcReplacer(L *lua.LState, fn *lua.LFunction) ReplaceFunc {
	return func(r *Result) (string, bool, error) {
		vals, err := r.Values()
		if err != nil {
			return "", false, err
		}
		L.Push(fn)
		L.Call(pushCaptures(L, vals), 1)
		v := L.Get(-1)
		L.Pop(1)
		return replacement(v)
	}
}

// replacement converts what a replacement table or function gave, as Lua 5.1's
// add_value does.
func replacement(v lua.LValue) (string, bool, error) {
	switch v := v.(type) {
	case lua.LString:
		return string(v), true, nil
	case lua.LNumber:
		return v.String(), true, nil
	}
	if !lua.LVAsBool(v) {
		return "", false, nil
	}
	return "", false, fmt.Errorf("invalid replacement value (a %s)", v.Type())
}
