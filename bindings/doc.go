// Package bindings is luatool's sandboxed Lua virtual machine, built on gopher-lua.
//
// It knows nothing of tools. It compiles Lua source once per file version ([Compile]),
// builds states with an allow-list of libraries ([NewVM]), keeps pools of states that
// have run a program's main chunk ([Pool]), converts values between Lua and the JSON
// value model ([VM.ToLua], [VM.FromLua]), reports script failures as one error type
// with file, line and a Lua backtrace ([ScriptError]), and lets a Go host offer its own
// functions and values to scripts as modules loaded with require ([Module]).
//
// A host bounds how many calls run Lua code at once with a [Gate], shared fairly
// between keys (the Lua loader's are principals); a host function that waits for the
// world (a command, a response, a timer) gives its call's slot back meanwhile with
// [Blocking], so that slots count code that runs.
//
// A VM, like the lua.LState inside it, serves one goroutine at a time. Programs and
// Modules are immutable once built and may be shared by any number of VMs.
//
// What scripts can reach: the base library without dofile, loadfile, load, loadstring,
// getfenv, setfenv, collectgarbage, module and newproxy; string, table, math and
// coroutine; os.time, os.clock, os.date and os.difftime; require of registered host
// modules and of the always-present json module. print writes to the current call's
// log, never to the process's standard output. io, debug, package, channel and the
// rest of os are never opened.
package bindings
