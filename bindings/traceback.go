package bindings

import (
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// maxTracebackFrames is how many frames a traceback shows.
const maxTracebackFrames = 20

// recordTraceback is the error handler of a call: it keeps a traceback of at most
// maxTracebackFrames Lua frames in vm.traceback and returns the error unchanged.
func (vm *VM) recordTraceback(L *lua.LState) int {
	vm.traceback = boundedTraceback(L)
	return 1
}

// boundedTraceback describes the Lua frames of L's stack, innermost first, skipping Go
// frames (the handler itself, library functions), at most maxTracebackFrames of them.
func boundedTraceback(L *lua.LState) string {
	var b strings.Builder
	b.WriteString("stack traceback:")
	shown := 0
	for level := 0; shown < maxTracebackFrames; level++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			break
		}
		if _, err := L.GetInfo("Sln", dbg, lua.LNil); err != nil || dbg.What == "G" || dbg.CurrentLine <= 0 {
			continue
		}
		name := dbg.Name
		if name == "" {
			name = "?"
		}
		fmt.Fprintf(&b, "\n\t%s:%d: in function '%s'", dbg.Source, dbg.CurrentLine, name)
		shown++
	}
	return b.String()
}

// pcall is the base library's pcall with an error handler, so that gopher-lua never
// builds its unbounded traceback for an error a script catches.
func (vm *VM) pcall(L *lua.LState) int {
	L.CheckAny(1)
	v := L.Get(1)
	if v.Type() != lua.LTFunction && L.GetMetaField(v, "__call").Type() != lua.LTFunction {
		L.Push(lua.LFalse)
		L.Push(lua.LString("attempt to call a " + v.Type().String() + " value"))
		return 2
	}
	if err := L.PCall(L.GetTop()-1, lua.MultRet, vm.silent); err != nil {
		L.Push(lua.LFalse)
		if aerr, ok := err.(*lua.ApiError); ok {
			L.Push(aerr.Object)
		} else {
			L.Push(lua.LString(err.Error()))
		}
		return 2
	}
	L.Insert(lua.LTrue, 1)
	return L.GetTop()
}

// silentHandler returns the error unchanged: the handler of the scripts' own pcall,
// so that a caught error costs no traceback at all.
func silentHandler(L *lua.LState) int { return 1 }
