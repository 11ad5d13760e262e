package bindings

import (
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// maxNestedPcalls bounds how deeply pcall and xpcall nest on one thread.
const maxNestedPcalls = 64

// maxTracebackFrames is how many frames a traceback shows.
const maxTracebackFrames = 20

// recordTraceback is the error handler of a call: it keeps a traceback of at most
// maxTracebackFrames Lua frames in vm.traceback and returns the error unchanged.
func (vm *VM) recordTraceback(L *lua.LState) int {
	entry := ""
	if vm.call != nil {
		entry = vm.call.Entry
	}
	vm.traceback = boundedTraceback(L, entry)
	return 1
}

// boundedTraceback describes the Lua frames of L's stack, innermost first, skipping Go
// frames (the handler itself, library functions), at most maxTracebackFrames of them.
// The outermost frame was called from Go, so gopher-lua names it "main chunk"
// whatever it is: a function defined in the file is named entry instead (the member
// the host called), or by where it is defined when entry is empty.
func boundedTraceback(L *lua.LState, entry string) string {
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
		switch {
		case dbg.What == "main" && dbg.LineDefined > 0 && entry != "":
			name = entry
		case dbg.What == "main" && dbg.LineDefined > 0:
			name = fmt.Sprintf("<%s:%d>", dbg.Source, dbg.LineDefined)
		case name == "":
			name = "?"
		}
		fmt.Fprintf(&b, "\n\t%s:%d: in function '%s'", dbg.Source, dbg.CurrentLine, name)
		shown++
	}
	return b.String()
}

// pcall is the base library's pcall, changed in three ways. It passes an error
// handler, so that gopher-lua never builds its unbounded traceback for an error a
// script catches. It does not catch the end of the call's context: that error goes
// on up at once, instead of being caught and raised again at every level of nested
// pcalls. And it counts itself on the running thread, so that coroutine.yield can
// refuse to yield across it (Lua 5.1 cannot; gopher-lua fails with a Go error).
func (vm *VM) pcall(L *lua.LState) int {
	L.CheckAny(1)
	v := L.Get(1)
	if v.Type() != lua.LTFunction && L.GetMetaField(v, "__call").Type() != lua.LTFunction {
		L.Push(lua.LFalse)
		L.Push(lua.LString("attempt to call a " + v.Type().String() + " value"))
		return 2
	}
	return vm.protect(L, L.GetTop()-1, 0, nil)
}

// xpcall is the base library's xpcall with pcall's changes; the script's handler is
// itself called protected, so that its own failure costs no traceback either.
func (vm *VM) xpcall(L *lua.LState) int {
	fn := L.CheckFunction(1)
	handler := L.CheckFunction(2)
	L.SetTop(0)
	L.Push(fn)
	return vm.protect(L, 0, 0, handler)
}

// protect calls the function below the top nargs values and returns what pcall
// returns; base is the stack height below the function.
func (vm *VM) protect(L *lua.LState, nargs, base int, handler *lua.LFunction) int {
	if vm.protected[L] >= maxNestedPcalls {
		// Lua 5.1 stops C calls nested 200 deep; each pcall nests Go calls in gopher-lua,
		// and unwinding hundreds of them after a deadline takes a second.
		L.RaiseError("too many nested pcalls (more than %d)", maxNestedPcalls)
	}
	vm.protected[L]++
	defer func() {
		if vm.protected[L]--; vm.protected[L] == 0 {
			delete(vm.protected, L)
		}
	}()
	err := L.PCall(nargs, lua.MultRet, vm.silent)
	if err == nil {
		L.Insert(lua.LTrue, base+1)
		return L.GetTop() - base
	}
	var obj lua.LValue = lua.LString(err.Error())
	if aerr, ok := err.(*lua.ApiError); ok {
		obj = aerr.Object
	}
	if ctx := L.Context(); ctx != nil && ctx.Err() != nil {
		L.Error(obj, 0)
	}
	if handler != nil {
		L.Push(handler)
		L.Push(obj)
		if herr := L.PCall(1, 1, vm.silent); herr != nil {
			if aerr, ok := herr.(*lua.ApiError); ok {
				obj = aerr.Object
			}
		} else {
			obj = L.Get(-1)
			L.Pop(1)
		}
	}
	L.Push(lua.LFalse)
	L.Push(obj)
	return 2
}

// silentHandler returns the error unchanged: the handler of the scripts' own pcall,
// so that a caught error costs no traceback at all.
func silentHandler(L *lua.LState) int { return 1 }
