package bindings

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// callMain runs the function the program returned, on a state from p, and gives the
// state back.
func callMain(t *testing.T, p *Pool, ctx context.Context, args ...lua.LValue) ([]lua.LValue, error) {
	t.Helper()
	vm, err := p.Get()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Put(vm)
	return vm.Call(&Call{Context: ctx}, vm.Main, args...)
}

func newPool(t *testing.T, src string, limits Limits) *Pool {
	t.Helper()
	prog, err := Compile("tool.lua", []byte(src), limits)
	if err != nil {
		t.Fatal(err)
	}
	p := NewPool(prog, Config{Limits: limits})
	t.Cleanup(p.Close)
	return p
}

// No canary survives from one call to the next: globals cannot be assigned after
// load, libraries and the string metatable cannot be changed, by any route.
func TestNoCanarySurvives(t *testing.T) {
	const src = `
local seen = {}
helper = function() return "defined at load" end
return function()
  local report = {}
  report[#report+1] = tostring(rawget(_G, "CANARY"))
  report[#report+1] = type(string.upper)
  report[#report+1] = tostring(("x").canary)
  report[#report+1] = tostring(table.canary)
  report[#report+1] = helper()
  -- every route to plant a canary must fail
  local attempts = {
    function() CANARY = 1 end,
    function() _G.CANARY = 1 end,
    function() rawset(_G, "CANARY", 1) end,
    function() string.upper = nil end,
    function() rawset(string, "upper", nil) end,
    function() table.insert(string, 1) end,
    function() getmetatable("").__index.canary = 1 end,
    function() setmetatable(string, nil) end,
    function() setmetatable(_G, nil) end,
    function() table.canary = 1 end,
    function() helper = nil end,
    function() require("json").null = 1 end,
  }
  local failed = 0
  for _, f in ipairs(attempts) do
    if not pcall(f) then failed = failed + 1 end
  end
  report[#report+1] = failed .. "/" .. #attempts
  return table.concat(report, " ")
end`
	for _, fresh := range []bool{false, true} {
		p := newPool(t, src, Limits{FreshStates: fresh, MaxIdleStates: 1})
		for i := 0; i < 3; i++ {
			out, err := callMain(t, p, context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if got, want := out[0].String(), "nil function nil nil defined at load 12/12"; got != want {
				t.Errorf("fresh=%v call %d: %q, want %q", fresh, i+1, got, want)
			}
		}
	}
}

// The error for a global assignment says what to do instead.
func TestGlobalAssignmentErrorIsClear(t *testing.T) {
	p := newPool(t, `return function() counter = 1 end`, Limits{})
	_, err := callMain(t, p, context.Background())
	if err == nil || !strings.Contains(err.Error(), "cannot assign global 'counter'") || !strings.Contains(err.Error(), "use a local") {
		t.Fatalf("error %v", err)
	}
}

// Locked libraries still read and iterate as before.
func TestLockedLibrariesStillWork(t *testing.T) {
	p := newPool(t, `return function()
  local n = 0
  for k, v in pairs(string) do n = n + 1 end
  local k = next(math)
  return n > 10, k ~= nil, rawget(string, "upper") == string.upper, ("abc"):upper()
end`, Limits{})
	out, err := callMain(t, p, context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"true", "true", "true", "ABC"} {
		if out[i].String() != want {
			t.Errorf("result %d = %s, want %s", i+1, out[i], want)
		}
	}
}

// A coroutine kept from an earlier call runs under the current call's deadline.
func TestStoredCoroutineObeysTheCurrentDeadline(t *testing.T) {
	p := newPool(t, `
local kept
return function(phase)
  if phase == "store" then
    kept = coroutine.create(function() coroutine.yield() while true do end end)
    coroutine.resume(kept)
    local w = coroutine.wrap(function() coroutine.yield(1) while true do end end)
    w()
    kept2 = nil
    return "stored"
  end
  return coroutine.resume(kept)
end`, Limits{MaxIdleStates: 1})
	if _, err := callMain(t, p, context.Background(), lua.LString("store")); err == nil {
		// kept2 = nil assigns a global: refused; store again without it below.
		t.Log("global assignment refused as expected")
	}
	p = newPool(t, `
local kept
return function(phase)
  if phase == "store" then
    kept = coroutine.create(function() coroutine.yield() while true do end end)
    coroutine.resume(kept)
    return "stored"
  end
  return coroutine.resume(kept)
end`, Limits{MaxIdleStates: 1})
	if _, err := callMain(t, p, context.Background(), lua.LString("store")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		out, err := callMain(t, p, ctx, lua.LString("resume"))
		// The loop inside the coroutine is stopped: resume reports it, or the call fails.
		if err == nil && out[0] != lua.LFalse {
			t.Errorf("resume returned %v", out)
		}
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("a stored coroutine escaped the deadline")
	}
}

func TestBoundedBuiltins(t *testing.T) {
	limits := Limits{MaxStringBytes: 1 << 20, MaxUnpack: 100, MaxCoroutines: 10}
	for _, tc := range []struct{ src, want string }{
		{`return ("x"):rep(2^21)`, "string.rep: the result would be 2097152 bytes, over the limit"},
		{`return ("ab"):rep(2^62)`, "string.rep: the result would be"},
		{`return string.format("%0999d", 1)`, "invalid format (width or precision too long)"},
		{`return string.format("%.100f", 1)`, "invalid format (width or precision too long)"},
		{`local s = ("x"):rep(2^19) return string.format("%s%s%s", s, s, s)`, "string.format: the result would be"},
		{`local t = {} for i = 1, 3 do t[i] = ("x"):rep(2^19) end return table.concat(t)`, "table.concat: the result would be"},
		{`return unpack({}, 1, 1e8)`, "unpack: 100000000 values is over the limit of 100"},
		{`for i = 1, 11 do coroutine.create(function() end) end`, "more than 10 coroutines in one call"},
		{`for i = 1, 11 do coroutine.wrap(function() end) end`, "more than 10 coroutines in one call"},
		{`return table.concat({1, {}, 3})`, "invalid value (table) at index 2 in table for concat"},
	} {
		p := newPool(t, "return function() "+tc.src+" end", limits)
		_, err := callMain(t, p, context.Background())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.src, err, tc.want)
		}
	}
	// Within the limits they behave as before.
	p := newPool(t, `return function()
  return ("ab"):rep(3), string.format("%5.2f|%-3d|%s", 3.14159, 7, "z"), table.concat({1, "a", 2.5}, ","), select("#", unpack({1, 2, 3}))
end`, limits)
	out, err := callMain(t, p, context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"ababab", " 3.14|7  |z", "1,a,2.5", "3"} {
		if out[i].String() != want {
			t.Errorf("result %d = %q, want %q", i+1, out[i].String(), want)
		}
	}
}

// Compile bombs are refused before the parser or compiler spends seconds on them.
func TestNestingLimitAtCompile(t *testing.T) {
	for _, src := range []string{
		strings.Repeat("local function f() ", 300) + strings.Repeat(" end", 300),
		"return " + strings.Repeat("{", 300) + strings.Repeat("}", 300),
		"local a = 1 return a" + strings.Repeat(" + a", 5000),
	} {
		_, err := Compile("bomb.lua", []byte(src), Limits{})
		var se *ScriptError
		if !errors.As(err, &se) || !strings.Contains(se.Message, "nesting is deeper than 200 levels") || se.Line == 0 {
			t.Errorf("%.40s...: error %v", src, err)
		}
	}
	// Strings and comments do not count.
	src := "-- " + strings.Repeat("(", 500) + "\nlocal s = '" + strings.Repeat("{", 500) + "' --[[ " + strings.Repeat("function ", 500) + "]] return s"
	if _, err := Compile("ok.lua", []byte(src), Limits{}); err != nil {
		t.Errorf("nesting inside strings and comments was counted: %v", err)
	}
}

// Pattern functions honour the deadline and the step limit (D10, D11): gopher-lua's
// own would backtrack for minutes.
func TestPatternsAreBounded(t *testing.T) {
	p := newPool(t, `return function(n) return string.find(("a"):rep(n), ".-.-.-b$") end`, Limits{})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := callMain(t, p, ctx, lua.LNumber(3000))
	var se *ScriptError
	if !errors.As(err, &se) || !se.Timeout() {
		t.Errorf("error %v, want the deadline", err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("returned after %v: the deadline did not stop the match", d)
	}
	p = newPool(t, `return function(n) return string.find(("a"):rep(n), ".-.-.-b$") end`, Limits{MaxPatternSteps: 1e6})
	if _, err := callMain(t, p, context.Background(), lua.LNumber(3000)); err == nil || !strings.Contains(err.Error(), "pattern too complex") {
		t.Errorf("error %v, want the step limit", err)
	}
	p = newPool(t, `return function() return (("x"):rep(100)):gsub("x", function(c) return c:upper() end) end`, Limits{})
	if out, err := callMain(t, p, context.Background()); err != nil || out[0].String() != strings.Repeat("X", 100) {
		t.Errorf("gsub with a function: %v %v", out, err)
	}
}

// A tail-call loop stops at the deadline without the traceback gopher-lua would
// build, one line per tail call (D4), which took seconds and gigabytes past the
// deadline; also when the script's own pcall catches the error. The traceback's size
// is checked, not the clock: how late the call returns depends on the machine.
func TestTailCallLoopStopsAtTheDeadline(t *testing.T) {
	for _, src := range []string{
		`return function() local function f(n) return f(n + 1) end return f(1) end`,
		`return function() local function f(n) return f(n + 1) end return pcall(f, 1) end`,
	} {
		p := newPool(t, src, Limits{})
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		start := time.Now()
		_, err := callMain(t, p, ctx)
		cancel()
		var se *ScriptError
		if !errors.As(err, &se) || !se.Timeout() {
			t.Fatalf("%s: error %v, want the deadline (a pcall-caught cancellation is still one)", src, err)
		}
		t.Logf("%s: returned %v past the deadline", src, time.Since(start)-500*time.Millisecond)
		if strings.Count(se.Traceback, "\n") > maxTracebackFrames {
			t.Errorf("traceback of %d lines", strings.Count(se.Traceback, "\n"))
		}
	}
}

// Data values of a host module are copied afresh for every call: what one call writes
// into its copy is not seen by the next, pooled or not.
func TestModuleDataDoesNotCarryOver(t *testing.T) {
	m := &Module{Name: "hostmod", Values: map[string]any{"config": map[string]string{"a": "1"}, "list": []string{"a", "b"}}}
	prog, err := Compile("tool.lua", []byte(`local h = require("hostmod")
return function(c)
  local seen = tostring(h.config.canary) .. "/" .. tostring(h.list[3])
  h.config.canary = c
  h.list[#h.list + 1] = c
  return seen
end`), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	p := NewPool(prog, Config{Modules: []*Module{m}, Limits: Limits{MaxIdleStates: 1}})
	defer p.Close()
	for _, c := range []string{"A", "B"} {
		out, err := callMain(t, p, context.Background(), lua.LString(c))
		if err != nil || out[0].String() != "nil/nil" {
			t.Errorf("call %s saw %v (%v)", c, out, err)
		}
	}
}
