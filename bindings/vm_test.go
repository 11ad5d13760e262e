package bindings

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"
)

func TestAllowListRemovesDangerousGlobals(t *testing.T) {
	vm := newTestVM(t, Config{})
	absent := []string{
		"io", "debug", "package", "channel", "dofile", "loadfile", "load", "loadstring",
		"getfenv", "setfenv", "collectgarbage", "module", "newproxy", "_printregs",
		"os.execute", "os.exit", "os.getenv", "os.setenv", "os.remove", "os.rename", "os.tmpname",
		"string.dump", `("").dump`,
	}
	for _, expr := range absent {
		if got := eval(t, vm, "return "+expr+" == nil"); got != lua.LTrue {
			t.Errorf("%s is reachable; it must be nil", expr)
		}
	}
	present := []string{
		"os.time", "os.clock", "os.date", "os.difftime", "print", "require", "pcall", "error",
		"string.format", "string.rep", "table.concat", "math.floor", "coroutine.create", "coroutine.resume",
	}
	for _, expr := range present {
		if got := eval(t, vm, "return type("+expr+")"); got.String() != "function" {
			t.Errorf("type(%s) = %s, want function", expr, got)
		}
	}
	if got := eval(t, vm, `return type(os.time()) .. " " .. type(os.clock()) .. " " .. type(os.date("%Y"))`); got.String() != "number number string" {
		t.Errorf("os.time/clock/date = %s", got)
	}
}

// captureStdout runs fn with os.Stdout redirected to a pipe and returns what was
// written to it.
func captureStdout(t *testing.T, fn func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stdout
	os.Stdout = w
	done := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		done <- string(b)
	}()
	func() {
		defer func() { os.Stdout = saved }()
		fn()
	}()
	w.Close()
	out := <-done
	r.Close()
	return out
}

func TestPrintGoesToTheCallLogNotStdout(t *testing.T) {
	vm := newTestVM(t, Config{})
	fn := eval(t, vm, `return function(x) print("hello", 1, nil, true, x) print() print(setmetatable({}, {__tostring = function() return "obj" end})) return "done" end`)
	var lines []string
	var out []lua.LValue
	stdout := captureStdout(t, func() {
		var err error
		out, err = vm.Call(&Call{Log: LogFunc(func(line string) { lines = append(lines, line) })}, fn, lua.LString("x"))
		if err != nil {
			t.Errorf("call: %v", err)
		}
		// With no Log, print output is discarded, and still not written to stdout.
		if _, err := vm.Call(&Call{}, fn, lua.LString("y")); err != nil {
			t.Errorf("call without a log: %v", err)
		}
		if _, err := vm.Call(nil, fn, lua.LString("z")); err != nil {
			t.Errorf("nil call: %v", err)
		}
	})
	if stdout != "" {
		t.Errorf("print wrote %q to the process's stdout", stdout)
	}
	want := []string{"hello\t1\tnil\ttrue\tx", "", "obj"}
	if strings.Join(lines, "|") != strings.Join(want, "|") {
		t.Errorf("log = %q, want %q", lines, want)
	}
	if len(out) != 1 || out[0].String() != "done" {
		t.Errorf("results = %v", out)
	}
}

func TestLogIsCappedPerCall(t *testing.T) {
	vm := newTestVM(t, Config{Limits: Limits{MaxLogBytes: 10}})
	fn := eval(t, vm, `return function() for i = 1, 100 do print("0123456789abc") end end`)
	var lines []string
	if _, err := vm.Call(&Call{Log: LogFunc(func(l string) { lines = append(lines, l) })}, fn); err != nil {
		t.Fatal(err)
	}
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "0123456789") || !strings.Contains(lines[0], "[log truncated]") {
		t.Errorf("log = %q, want one line cut at 10 bytes with a truncation marker", lines)
	}
	// The cap is per call: the next call logs again.
	lines = nil
	if _, err := vm.Call(&Call{Log: LogFunc(func(l string) { lines = append(lines, l) })}, fn); err != nil {
		t.Fatal(err)
	}
	if len(lines) != 1 {
		t.Errorf("second call logged %d lines, want 1", len(lines))
	}
}

func TestRequireUnknownModule(t *testing.T) {
	vm := newTestVM(t, Config{Modules: []*Module{{Name: "fs"}, {Name: "shell"}}})
	tests := []struct {
		name     string
		want     []string
		dontWant string
	}{
		{"fss", []string{"module 'fss' not found", "did you mean 'fs'?", "available modules: fs, json, shell"}, ""},
		{"JSON", []string{"did you mean 'json'?"}, ""},
		{"io", []string{"module 'io' not found", "available modules: fs, json, shell"}, "did you mean"},
	}
	for _, tt := range tests {
		_, err := tryEval(vm, `return require("`+tt.name+`")`)
		var se *ScriptError
		if !errors.As(err, &se) {
			t.Fatalf("require(%q): error %v, want a *ScriptError", tt.name, err)
		}
		for _, w := range tt.want {
			if !strings.Contains(se.Message, w) {
				t.Errorf("require(%q) message %q lacks %q", tt.name, se.Message, w)
			}
		}
		if tt.dontWant != "" && strings.Contains(se.Message, tt.dontWant) {
			t.Errorf("require(%q) message %q should not contain %q", tt.name, se.Message, tt.dontWant)
		}
		if se.File != "test.lua" || se.Line != 1 {
			t.Errorf("require(%q) position = %s:%d, want test.lua:1", tt.name, se.File, se.Line)
		}
	}
}

type greeter struct{ Greeting string }

func (g *greeter) Greet(name string) string { return g.Greeting + ", " + name }

func TestRequireRegisteredModule(t *testing.T) {
	calc := &Module{
		Name: "calc",
		Doc:  "arithmetic",
		Funcs: map[string]lua.LGFunction{
			"add": func(L *lua.LState) int {
				a := NewArgs(L, "calc.add")
				L.Push(lua.LNumber(a.Int(1) + a.Int(2)))
				return 1
			},
		},
		Values: map[string]any{
			"upper":   strings.ToUpper,
			"version": "1.2",
			"greet":   (&greeter{Greeting: "hello"}).Greet,
			"greeter": &greeter{Greeting: "hi"},
		},
	}
	vm := newTestVM(t, Config{Modules: []*Module{calc}})
	got := eval(t, vm, `local c = require("calc")
		return c.add(2, 3) .. " " .. c.upper("abc") .. " " .. c.version .. " " .. c.greet("bob") .. " " ..
			c.greeter.Greeting .. " " .. tostring(require("calc") == c)`)
	if got.String() != "5 ABC 1.2 hello, bob hi true" {
		t.Errorf("got %q", got)
	}
	// Each VM builds its own module table.
	vm2 := newTestVM(t, Config{Modules: []*Module{calc}})
	if got := eval(t, vm2, `return require("calc").add(1, 1)`); got.String() != "2" {
		t.Errorf("second VM: %s", got)
	}
}

func TestDuplicateModulePanics(t *testing.T) {
	for _, mods := range [][]*Module{
		{{Name: "fs"}, {Name: "fs"}},
		{{Name: "json"}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("NewVM with modules %s did not panic", mods[len(mods)-1].Name)
				}
			}()
			NewVM(Config{Modules: mods}).Close()
		}()
	}
}

func TestSyntaxErrorHasFileAndLine(t *testing.T) {
	_, err := Compile("tools/bad.lua", []byte("local x = 1\n\nlocal y = = 2\n"), Limits{})
	var se *ScriptError
	if !errors.As(err, &se) {
		t.Fatalf("Compile error = %v (%T), want a *ScriptError", err, err)
	}
	if se.File != "tools/bad.lua" || se.Line != 3 {
		t.Errorf("position = %s:%d, want tools/bad.lua:3", se.File, se.Line)
	}
	if !strings.HasPrefix(se.Error(), "tools/bad.lua:3: ") {
		t.Errorf("Error() = %q", se.Error())
	}
}

func TestRuntimeErrorHasFileAndLine(t *testing.T) {
	tests := []struct {
		src     string
		line    int
		message string
	}{
		{"local a = 1\nerror('boom')\n", 2, "boom"},
		{"local t = nil\n\nreturn t.x\n", 3, "attempt to index"},
		{"local function f()\n  error('deep')\nend\nlocal function g() f() end\ng()\n", 2, "deep"},
		{"\n\nerror('no position', 0)\n", 3, "no position"},
		{"local x = ('x'):rep(-1) .. nil\n", 1, "cannot perform concat"},
	}
	for _, tt := range tests {
		vm := newTestVM(t, Config{})
		_, err := tryEval(vm, tt.src)
		var se *ScriptError
		if !errors.As(err, &se) {
			t.Errorf("%q: error %v, want a *ScriptError", tt.src, err)
			continue
		}
		if se.File != "test.lua" || se.Line != tt.line {
			t.Errorf("%q: position %s:%d, want test.lua:%d (%v)", tt.src, se.File, se.Line, tt.line, err)
		}
		if !strings.Contains(se.Message, tt.message) || strings.HasPrefix(se.Message, "test.lua") {
			t.Errorf("%q: message %q, want it to contain %q without the position", tt.src, se.Message, tt.message)
		}
		if se.Traceback == "" && tt.line != 3 {
			t.Errorf("%q: no traceback", tt.src)
		}
	}
}

func TestRuntimeErrorInAFunctionCalledFromGo(t *testing.T) {
	vm := newTestVM(t, Config{})
	fn := eval(t, vm, "return function(x)\n  if x then\n    error('bad x: ' .. x)\n  end\nend\n")
	_, err := vm.Call(nil, fn, lua.LString("q"))
	var se *ScriptError
	if !errors.As(err, &se) || se.Line != 3 || se.Message != "bad x: q" || se.Error() != "test.lua:3: bad x: q" {
		t.Errorf("error = %#v", err)
	}
}

// TestTracebackNamesTheEntry: the function the host calls is named in the traceback
// by the Call's Entry (gopher-lua would call it "main chunk"), or by where it is
// defined; the main chunk itself keeps its name.
func TestTracebackNamesTheEntry(t *testing.T) {
	vm := newTestVM(t, Config{})
	fn := eval(t, vm, "local function helper()\n  error('deep')\nend\nreturn function()\n  helper()\nend\n")
	_, err := vm.Call(&Call{Entry: "call"}, fn)
	var se *ScriptError
	if !errors.As(err, &se) || !strings.Contains(se.Traceback, "test.lua:2: in function 'helper'") ||
		!strings.Contains(se.Traceback, "test.lua:5: in function 'call'") || strings.Contains(se.Traceback, "main chunk") {
		t.Errorf("traceback with an entry:\n%s", se.Traceback)
	}
	vm = newTestVM(t, Config{})
	fn = eval(t, vm, "return function()\n  error('x')\nend\n")
	_, err = vm.Call(nil, fn)
	if !errors.As(err, &se) || !strings.Contains(se.Traceback, "test.lua:2: in function '<test.lua:1>'") {
		t.Errorf("traceback without an entry:\n%s", se.Traceback)
	}
	if got := se.ModelText(); got != "x" {
		t.Errorf("ModelText = %q, want the message alone", got)
	}
}

func TestErrorObjectsRenderDeterministically(t *testing.T) {
	tests := []struct{ src, want string }{
		{`error(nil)`, "script failed without a message"},
		{`error(false)`, "script failed without a message"},
		{`error({code = 42})`, `error object: {"code":42}`},
		{`error({zeta = 1, alpha = {2, 3}, mid = "m"})`, `error object: {"alpha":[2,3],"mid":"m","zeta":1}`},
		{`error(setmetatable({}, {__tostring = function() return "custom" end}))`, `error object: {}`},
		{`error(print)`, "error object: (function)"},
		{`local t = {} t.t = t error(t)`, "error object: (table)"},
	}
	for _, tt := range tests {
		for i := 0; i < 5; i++ {
			vm := newTestVM(t, Config{})
			_, err := tryEval(vm, tt.src)
			var se *ScriptError
			if !errors.As(err, &se) {
				t.Fatalf("%s: error %v", tt.src, err)
			}
			if se.Message != tt.want {
				t.Errorf("%s: message %q, want %q", tt.src, se.Message, tt.want)
				break
			}
		}
	}
}

func TestDeadlineStopsAnInfiniteLoop(t *testing.T) {
	for _, src := range []string{
		`return function() while true do end end`,
		// pcall cannot swallow the deadline.
		`return function() while true do pcall(function() while true do end end) end end`,
		`return function() local co = coroutine.wrap(function() while true do coroutine.yield() end end) while true do co() end end`,
	} {
		vm := newTestVM(t, Config{})
		fn := eval(t, vm, src)
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		start := time.Now()
		_, err := vm.Call(&Call{Context: ctx}, fn)
		cancel()
		if elapsed := time.Since(start); elapsed > 5*time.Second {
			t.Errorf("%s: stopped after %v", src, elapsed)
		}
		var se *ScriptError
		if !errors.As(err, &se) {
			t.Errorf("%s: error %v, want a *ScriptError", src, err)
			continue
		}
		if !se.Timeout() || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: Timeout() = %v, cause %v", src, se.Timeout(), se.Cause)
		}
		if !strings.Contains(se.Message, "deadline exceeded") {
			t.Errorf("%s: message %q", src, se.Message)
		}
		if !vm.Broken() {
			t.Errorf("%s: the VM is not marked broken after a timeout", src)
		}
	}
}

func TestCancelledContextBeforeCall(t *testing.T) {
	vm := newTestVM(t, Config{})
	fn := eval(t, vm, `return function() return 1 end`)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := vm.Call(&Call{Context: ctx}, fn)
	var se *ScriptError
	if !errors.As(err, &se) || !se.Timeout() || !errors.Is(err, context.Canceled) || !strings.Contains(se.Message, "cancelled") {
		t.Errorf("error = %v", err)
	}
}

func TestInitTimeoutBoundsTheMainChunk(t *testing.T) {
	vm := newTestVM(t, Config{Limits: Limits{InitTimeout: 100 * time.Millisecond}})
	prog, err := Compile("loop.lua", []byte("while true do end"), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = vm.Run(prog)
	var se *ScriptError
	if !errors.As(err, &se) || !se.Timeout() || se.File != "loop.lua" {
		t.Errorf("error = %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("the main chunk ran for %v", time.Since(start))
	}
}

func TestFailedVMIsBrokenAndPoolDiscardsIt(t *testing.T) {
	prog, err := Compile("tool.lua", []byte(`
		local calls = 0
		return {
			ok = function() calls = calls + 1 return calls end,
			fail = function() error("nope") end,
		}`), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	pool := NewPool(prog, Config{})
	defer pool.Close()

	vm, err := pool.Get()
	if err != nil {
		t.Fatal(err)
	}
	tbl, ok := vm.Main.(*lua.LTable)
	if !ok {
		t.Fatalf("Main = %v, want the table the chunk returned", vm.Main)
	}
	if _, err := vm.Call(nil, tbl.RawGetString("ok")); err != nil {
		t.Fatal(err)
	}
	if vm.Broken() {
		t.Fatal("a VM whose call succeeded is broken")
	}
	pool.Put(vm)

	// Reuse: the same state comes back, with Main set and module-level locals kept.
	vm2, err := pool.Get()
	if err != nil {
		t.Fatal(err)
	}
	if vm2 != vm {
		t.Error("the pool built a new VM although an idle one was put back")
	}
	out, err := vm2.Call(nil, vm2.Main.(*lua.LTable).RawGetString("ok"))
	if err != nil || len(out) != 1 || out[0] != lua.LNumber(2) {
		t.Errorf("second call on the reused VM = %v, %v; want 2", out, err)
	}

	if _, err := vm2.Call(nil, vm2.Main.(*lua.LTable).RawGetString("fail")); err == nil {
		t.Fatal("fail did not fail")
	}
	if !vm2.Broken() {
		t.Fatal("a VM whose call failed is not broken")
	}
	pool.Put(vm2)
	if !vm2.L.IsClosed() {
		t.Error("Pool.Put kept a broken VM open")
	}
	vm3, err := pool.Get()
	if err != nil {
		t.Fatal(err)
	}
	if vm3 == vm2 {
		t.Fatal("the pool handed out a broken VM again")
	}
	if _, ok := vm3.Main.(*lua.LTable); !ok {
		t.Errorf("new VM Main = %v", vm3.Main)
	}
	out, err = vm3.Call(nil, vm3.Main.(*lua.LTable).RawGetString("ok"))
	if err != nil || out[0] != lua.LNumber(1) {
		t.Errorf("fresh VM call = %v, %v; want 1 (fresh module locals)", out, err)
	}
	pool.Put(vm3)
}

func TestPoolLimitsIdleStatesAndCloses(t *testing.T) {
	prog, err := Compile("t.lua", []byte(`return {}`), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	pool := NewPool(prog, Config{Limits: Limits{MaxIdleStates: 1}})
	a, _ := pool.Get()
	b, _ := pool.Get()
	pool.Put(a)
	pool.Put(b)
	if !b.L.IsClosed() || a.L.IsClosed() {
		t.Errorf("with MaxIdleStates 1, the second Put should close its VM (a closed %v, b closed %v)", a.L.IsClosed(), b.L.IsClosed())
	}
	pool.Close()
	if !a.L.IsClosed() {
		t.Error("Close left an idle VM open")
	}
	c, err := pool.Get()
	if err != nil {
		t.Fatal(err)
	}
	pool.Put(c)
	if !c.L.IsClosed() {
		t.Error("Put after Close kept the VM")
	}
}

func TestPoolGetReportsAFailingMainChunk(t *testing.T) {
	prog, err := Compile("bad.lua", []byte("local x = 1\nerror('at load')\n"), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	pool := NewPool(prog, Config{})
	defer pool.Close()
	_, err = pool.Get()
	var se *ScriptError
	if !errors.As(err, &se) || se.File != "bad.lua" || se.Line != 2 || se.Message != "at load" {
		t.Errorf("Get error = %#v", err)
	}
}

func TestSourceSizeLimit(t *testing.T) {
	src := []byte("return 1 -- padding")
	if _, err := Compile("ok.lua", src, Limits{MaxSourceBytes: len(src)}); err != nil {
		t.Errorf("source at the limit: %v", err)
	}
	_, err := Compile("big.lua", src, Limits{MaxSourceBytes: len(src) - 1})
	var se *ScriptError
	if !errors.As(err, &se) || se.File != "big.lua" || !strings.Contains(se.Message, "over the limit") {
		t.Errorf("over the limit: %v", err)
	}
	big := make([]byte, DefaultMaxSourceBytes+1)
	for i := range big {
		big[i] = ' '
	}
	if _, err := Compile("huge.lua", big, Limits{}); err == nil {
		t.Error("a source over the default 1 MiB limit compiled")
	}
}

func TestCompiledProgramHash(t *testing.T) {
	a, _ := Compile("a.lua", []byte("return 1"), Limits{})
	b, _ := Compile("b.lua", []byte("return 1"), Limits{})
	c, _ := Compile("a.lua", []byte("return 2"), Limits{})
	if a.Hash != b.Hash || a.Hash == c.Hash {
		t.Error("Hash must depend on the source only")
	}
	if a.Name != "a.lua" {
		t.Errorf("Name = %q", a.Name)
	}
}

// argsModule offers functions that check their arguments with Args.
func argsModule() *Module {
	return &Module{Name: "x", Funcs: map[string]lua.LGFunction{
		"y": func(L *lua.LState) int {
			L.Push(lua.LString(NewArgs(L, "x.y").String(1)))
			return 1
		},
		"opt": func(L *lua.LState) int {
			a := NewArgs(L, "x.opt")
			o := a.Options(1, "limit", "offset", "pattern", "recursive")
			L.Push(lua.LString(strings.Join([]string{
				o.String("pattern", "*"),
				lua.LNumber(o.Int("limit", 10)).String(),
				lua.LNumber(o.Int("offset", 0)).String(),
				lua.LBool(o.Bool("recursive", false)).String(),
			}, " ")))
			return 1
		},
		"int": func(L *lua.LState) int {
			L.Push(lua.LNumber(NewArgs(L, "x.int").Int(1)))
			return 1
		},
		"tbl": func(L *lua.LState) int {
			NewArgs(L, "x.tbl").Table(1)
			return 0
		},
		"optstr": func(L *lua.LState) int {
			L.Push(lua.LString(NewArgs(L, "x.optstr").OptString(1, "def")))
			return 1
		},
		"optint": func(L *lua.LState) int {
			L.Push(lua.LNumber(NewArgs(L, "x.optint").OptInt(1, 7)))
			return 1
		},
		"num": func(L *lua.LState) int {
			L.Push(lua.LNumber(NewArgs(L, "x.num").Number(1)))
			return 1
		},
	}}
}

func TestArgsWording(t *testing.T) {
	tests := []struct{ call, want string }{
		{`x.y()`, "bad argument #1 to 'x.y' (string expected, got nil)"},
		{`x.y(12)`, "bad argument #1 to 'x.y' (string expected, got number)"},
		{`x.int("3")`, "bad argument #1 to 'x.int' (number expected, got string)"},
		{`x.int(1.5)`, "bad argument #1 to 'x.int' (whole number expected, got 1.5)"},
		{`x.int(1/0)`, "bad argument #1 to 'x.int' (whole number expected, got +Inf)"},
		{`x.tbl(print)`, "bad argument #1 to 'x.tbl' (table expected, got function)"},
		{`x.optstr({})`, "bad argument #1 to 'x.optstr' (string expected, got table)"},
		{`x.optint("2")`, "bad argument #1 to 'x.optint' (number expected, got string)"},
		{`x.optint(0.5)`, "bad argument #1 to 'x.optint' (whole number expected, got 0.5)"},
		{`x.num(true)`, "bad argument #1 to 'x.num' (number expected, got boolean)"},
	}
	vm := newTestVM(t, Config{Modules: []*Module{argsModule()}})
	for _, tt := range tests {
		_, err := tryEval(vm, "local x = require('x')\nreturn "+tt.call)
		var se *ScriptError
		if !errors.As(err, &se) {
			t.Errorf("%s: error %v", tt.call, err)
			continue
		}
		if se.Message != tt.want {
			t.Errorf("%s:\n got  %q\n want %q", tt.call, se.Message, tt.want)
		}
		if se.Line != 2 {
			t.Errorf("%s: line %d, want 2 (the caller's line)", tt.call, se.Line)
		}
	}
	for call, want := range map[string]string{`x.y("s")`: "s", `x.int(4)`: "4", `x.optstr()`: "def", `x.optint()`: "7", `x.optint(-3)`: "-3", `x.num(2.5)`: "2.5"} {
		if got := eval(t, vm, "local x = require('x') return "+call); got.String() != want {
			t.Errorf("%s = %s, want %s", call, got, want)
		}
	}
}

func TestOptionsRejectUnknownKeys(t *testing.T) {
	tests := []struct{ call, want string }{
		{`x.opt({lmit = 1})`, "bad argument #1 to 'x.opt' (unknown option 'lmit', did you mean 'limit'? options: limit, offset, pattern, recursive)"},
		{`x.opt({zzz = 1})`, "bad argument #1 to 'x.opt' (unknown option 'zzz'; options: limit, offset, pattern, recursive)"},
		{`x.opt({"positional"})`, "bad argument #1 to 'x.opt' (option names must be strings)"},
		{`x.opt({limit = "ten"})`, "bad argument #1 to 'x.opt' (option 'limit': number expected, got string)"},
		{`x.opt({limit = 2.5})`, "bad argument #1 to 'x.opt' (option 'limit': whole number expected, got 2.5)"},
		{`x.opt({recursive = 1})`, "bad argument #1 to 'x.opt' (option 'recursive': boolean expected, got number)"},
		{`x.opt({pattern = false})`, "bad argument #1 to 'x.opt' (option 'pattern': string expected, got boolean)"},
		{`x.opt("limit")`, "bad argument #1 to 'x.opt' (table expected, got string)"},
	}
	vm := newTestVM(t, Config{Modules: []*Module{argsModule()}})
	for _, tt := range tests {
		_, err := tryEval(vm, "local x = require('x') return "+tt.call)
		var se *ScriptError
		if !errors.As(err, &se) {
			t.Errorf("%s: error %v", tt.call, err)
			continue
		}
		if se.Message != tt.want {
			t.Errorf("%s:\n got  %q\n want %q", tt.call, se.Message, tt.want)
		}
	}
	for call, want := range map[string]string{
		`x.opt()`: "* 10 0 false",
		`x.opt({limit = 3, offset = 1, pattern = "*.go", recursive = true})`: "*.go 3 1 true",
	} {
		if got := eval(t, vm, "local x = require('x') return "+call); got.String() != want {
			t.Errorf("%s = %q, want %q", call, got, want)
		}
	}
}

// TestCurrentCallCarriesTheCall: a host function finds the call it runs under, with
// its access; outside a call there is none.
func TestCurrentCallCarriesTheCall(t *testing.T) {
	mod := &Module{Name: "host", Funcs: map[string]lua.LGFunction{
		"entry": func(L *lua.LState) int {
			c := CurrentCall(L)
			if c == nil {
				L.Push(lua.LString("no call"))
				return 1
			}
			L.Push(lua.LString(fmt.Sprintf("%s %d", c.Entry, c.Access)))
			return 1
		},
	}}
	vm := newTestVM(t, Config{Modules: []*Module{mod}})
	fn := eval(t, vm, `return function() return require("host").entry() end`)
	out, err := vm.Call(&Call{Entry: "call", Access: AccessWrite}, fn)
	if err != nil || out[0].String() != fmt.Sprintf("call %d", AccessWrite) {
		t.Errorf("entry() = %v, %v", out, err)
	}
	if CurrentCall(vm.L) != nil {
		t.Error("CurrentCall is set after the call returned")
	}
	if VMOf(vm.L) != vm {
		t.Error("VMOf does not find the VM")
	}
}

// TestLoadPhaseHasNoAccess: in the load phase (a main chunk run by Run, or a Call
// that says nothing), the functions of a module that is not Pure refuse, naming the
// phase; a Pure module's work; a member with read access cannot do what needs write
// access, and is told which member it is.
func TestLoadPhaseHasNoAccess(t *testing.T) {
	ran := 0
	world := &Module{Name: "world", Funcs: map[string]lua.LGFunction{
		"touch": func(L *lua.LState) int { ran++; return 0 },
		"write": func(L *lua.LState) int { Require(L, "world.write", AccessWrite); ran++; return 0 },
	}}
	pure := &Module{Name: "pure", Pure: true, Funcs: map[string]lua.LGFunction{
		"double": func(L *lua.LState) int { L.Push(L.CheckNumber(1) * 2); return 1 },
	}}
	run := func(src string) error {
		vm := newTestVM(t, Config{Modules: []*Module{world, pure}})
		prog, err := Compile("tool.lua", []byte(src), Limits{})
		if err != nil {
			t.Fatal(err)
		}
		return vm.Run(prog)
	}
	if err := run(`require("world").touch() return {}`); err == nil || !strings.Contains(err.Error(), "world.touch is not available while the tool file loads: call it from call()") {
		t.Errorf("a host function in the load phase: %v", err)
	}
	if err := run(`return { x = require("pure").double(21) }`); err != nil {
		t.Errorf("a pure function in the load phase: %v", err)
	}
	vm := newTestVM(t, Config{Modules: []*Module{world}})
	fn := eval(t, vm, `return function() require("world").write() end`)
	for _, tc := range []struct {
		call *Call
		want string
	}{
		{nil, "world.write is not available while the tool file loads"},
		{&Call{}, "world.write is not available while the tool file loads"},
		{&Call{Access: AccessRead, Entry: "isReadOnly"}, "world.write is not available in isReadOnly: only call() may change anything"},
		{&Call{Access: AccessRead, Entry: "call"}, "world.write is not available in this call: the tool is read-only for this input"},
	} {
		if _, err := vm.Call(tc.call, fn); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.call, err, tc.want)
		}
		vm = newTestVM(t, Config{Modules: []*Module{world}})
		fn = eval(t, vm, `return function() require("world").write() end`)
	}
	if ran != 0 {
		t.Fatalf("a refused function ran %d times", ran)
	}
	if _, err := vm.Call(&Call{Access: AccessWrite, Entry: "call"}, fn); err != nil || ran != 1 {
		t.Errorf("with write access: %v, ran %d", err, ran)
	}
}

func TestGoPanicInHostFunctionBecomesScriptError(t *testing.T) {
	mod := &Module{Name: "bad", Funcs: map[string]lua.LGFunction{
		"boom": func(L *lua.LState) int { panic("kaboom") },
		"nilmap": func(L *lua.LState) int {
			var m map[string]int
			m["x"] = 1
			return 0
		},
	}}
	for _, fn := range []string{"boom", "nilmap"} {
		vm := newTestVM(t, Config{Modules: []*Module{mod}})
		f := eval(t, vm, `return function() return require("bad").`+fn+`() end`)
		_, err := vm.Call(&Call{Access: AccessRead}, f)
		var se *ScriptError
		var hp *HostPanic
		if !errors.As(err, &se) || !errors.As(err, &hp) {
			t.Errorf("%s: error %v, want a *ScriptError caused by a *HostPanic", fn, err)
			continue
		}
		if !vm.Broken() {
			t.Errorf("%s: VM not broken after a panic", fn)
		}
	}
}

// TestRequireLuaModule: Config.LuaModules resolves require after the host modules;
// a module runs once per state, in an environment of its own, locked afterwards; its
// result is what require returns; a cycle and a module that fails to compile are
// errors naming the module; a name LuaModules does not know is "not found".
func TestRequireLuaModule(t *testing.T) {
	compile := func(name, src string) *Program {
		p, err := Compile(name, []byte(src), Limits{})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	runs := 0
	mods := map[string]*Program{
		"text":  compile("lib/text.lua", `local M = {} function M.shout(s) return s:upper() .. "!" end secret = 1 return M`),
		"loopa": compile("lib/loopa.lua", `return require("loopb")`),
		"loopb": compile("lib/loopb.lua", `return require("loopa")`),
		"quiet": compile("lib/quiet.lua", `local x = 1`),
	}
	cfg := Config{LuaModules: func(name string) (*Program, error) {
		if name == "broken" {
			return nil, errors.New("lib/broken.lua:1: syntax error")
		}
		if name == "text" {
			runs++
		}
		return mods[name], nil
	}}
	vm := newTestVM(t, cfg)
	got := eval(t, vm, `local a, b = require("text"), require("text") return a.shout("hi") .. tostring(a == b) .. tostring(secret) .. tostring(require("quiet"))`)
	if got.String() != "HI!trueniltrue" || runs != 1 {
		t.Errorf("got %q after %d lookups, want HI!trueniltrue after one (the module's globals are its own)", got, runs)
	}
	for src, want := range map[string]string{
		`return require("loopa")`:   `require "loopa": the module requires itself (a cycle)`,
		`return require("broken")`:  `require "broken": lib/broken.lua:1: syntax error`,
		`return require("missing")`: `module 'missing' not found`,
	} {
		if _, err := tryEval(newTestVM(t, cfg), src); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", src, err, want)
		}
	}
}

// The results of a Call stay as they were when a later Call is made with the same
// Call (a host calling back into Lua while it reads them).
func TestCallResultsKept(t *testing.T) {
	vm := newTestVM(t, Config{})
	fn := eval(t, vm, `return function(x) return x, x * 2 end`)
	c := &Call{}
	first, err := vm.Call(c, fn, lua.LNumber(1))
	if err != nil {
		t.Fatal(err)
	}
	second, err := vm.Call(c, fn, lua.LNumber(5))
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != 2 || first[0] != lua.LNumber(1) || first[1] != lua.LNumber(2) {
		t.Errorf("the first results became %v after a second call", first)
	}
	if len(second) != 2 || second[0] != lua.LNumber(5) || second[1] != lua.LNumber(10) {
		t.Errorf("second results %v, want [5 10]", second)
	}
}
