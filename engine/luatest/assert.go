package luatest

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/internal/jsonvalue"
)

// assertModule is require("assert"). A failed assertion raises an error at the line
// of the test that called it.
func assertModule() *bindings.Module {
	return &bindings.Module{
		Name: "assert",
		Pure: true,
		Doc:  "Assertions for tool tests: eq, matches, fails.",
		Funcs: map[string]lua.LGFunction{
			"eq":      assertEq,
			"matches": assertMatches,
			"fails":   assertFails,
		},
	}
}

// fail raises the assertion error, prefixed with the caller's message if any.
func fail(L *lua.LState, msgArg int, format string, args ...any) {
	text := fmt.Sprintf(format, args...)
	if m, ok := L.Get(msgArg).(lua.LString); ok && m != "" {
		text = string(m) + ": " + text
	}
	L.RaiseError("%s", text)
}

// assertEq is assert.eq(got, want [, message]): equal values, tables compared by
// their contents.
func assertEq(L *lua.LState) int {
	got, want := L.Get(1), L.Get(2)
	if !equal(got, want, map[[2]*lua.LTable]bool{}) {
		fail(L, 3, "expected %s, got %s", show(L, want), show(L, got))
	}
	return 0
}

// equal compares values; tables by their keys and values, recursively.
func equal(a, b lua.LValue, seen map[[2]*lua.LTable]bool) bool {
	ta, okA := a.(*lua.LTable)
	tb, okB := b.(*lua.LTable)
	if !okA || !okB {
		return a == b // strings, numbers and booleans by value; the rest by identity
	}
	if ta == tb || seen[[2]*lua.LTable{ta, tb}] {
		return true
	}
	seen[[2]*lua.LTable{ta, tb}] = true
	same := true
	count := 0
	ta.ForEach(func(k, v lua.LValue) {
		count++
		if same && !equal(v, tb.RawGet(k), seen) {
			same = false
		}
	})
	tb.ForEach(func(lua.LValue, lua.LValue) { count-- })
	return same && count == 0
}

// show renders a value for a message: as JSON when it is one, else as tostring. The
// JSON keeps <, > and & as they are: tool results are full of them
// (<tool_use_error>), and a message must show the text the test compared.
func show(L *lua.LState, v lua.LValue) string {
	if v.Type() == lua.LTString {
		return string(jsonvalue.AppendString(nil, string(v.(lua.LString))))
	}
	if plain, err := bindings.VMOf(L).FromLua(v); err == nil {
		if b, err := jsonvalue.Encode(plain); err == nil {
			return string(b)
		}
	}
	return L.ToStringMeta(v).String()
}

// find calls the sandbox's own string.find(s, pattern).
func find(L *lua.LState, s, pattern lua.LValue) bool {
	strlib := L.GetGlobal("string")
	L.Push(L.GetField(strlib, "find"))
	L.Push(s)
	L.Push(pattern)
	L.Call(2, 1)
	found := L.Get(-1) != lua.LNil
	L.Pop(1)
	return found
}

// assertMatches is assert.matches(s, pattern [, message]).
func assertMatches(L *lua.LState) int {
	args := bindings.NewArgs(L, "assert.matches")
	pattern := args.String(2)
	s, ok := L.Get(1).(lua.LString)
	if !ok {
		fail(L, 3, "expected a string matching %q, got %s", pattern, show(L, L.Get(1)))
	}
	if !find(L, s, lua.LString(pattern)) {
		fail(L, 3, "%s does not match %q", show(L, s), pattern)
	}
	return 0
}

// assertFails is assert.fails(fn [, pattern [, message]]): fn must raise an error
// (whose message matches pattern, if given); the error's message is returned. It
// uses the sandbox's pcall, which never catches the end of the case's time.
func assertFails(L *lua.LState) int {
	args := bindings.NewArgs(L, "assert.fails")
	fn := L.CheckFunction(1)
	pattern := args.OptString(2, "")
	L.Push(L.GetGlobal("pcall"))
	L.Push(fn)
	L.Call(1, 2)
	ok, msg := L.Get(-2), L.Get(-1)
	L.Pop(2)
	if lua.LVAsBool(ok) {
		fail(L, 3, "expected an error, but the function returned")
	}
	text := L.ToStringMeta(msg)
	if pattern != "" && !find(L, text, lua.LString(pattern)) {
		fail(L, 3, "the error %s does not match %q", show(L, text), pattern)
	}
	L.Push(text)
	return 1
}
