package bindings

import (
	"context"
	"errors"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// '..' compiled to the bounded concatenation gives what gopher-lua's own instruction
// gives, value and error alike, for every shape of chain.
func TestConcatAgreesWithLua(t *testing.T) {
	prelude := `
local mt = {__concat = function(a, b)
  local function s(v) if type(v) == "table" then return "<" .. v.n .. ">" end return tostring(v) end
  return s(a) .. "+" .. s(b)
end}
local A, B = setmetatable({n = "A"}, mt), setmetatable({n = "B"}, mt)
local function two() return "x", "y" end
`
	for _, expr := range []string{
		`"a" .. "b"`,
		`"a" .. "b" .. "c" .. "d"`,
		`("a" .. "b") .. ("c" .. "d")`,
		`1 .. 2`,
		`1.5 .. "|" .. -0.25 .. "|" .. 1e100 .. "|" .. 2^53`,
		`"n=" .. 10 / 4`,
		`A .. "x"`,
		`"x" .. A`,
		`A .. B`,
		`"p" .. A .. "q" .. "r"`,
		`"p" .. "q" .. A .. B .. "r"`,
		`two() .. "z"`,
		`"z" .. two()`,
		`#("ab" .. "cd")`,
		`select("#", "a" .. "b", two())`,
		`(function(...) return ... .. "!" end)("v", "w")`,
		`({"a" .. "b", "c" .. "d"})[2]`,
		`string.upper("a" .. "b")`,
		`("x"):rep(3) .. ("y"):rep(2)`,
		`nil .. "x"`,
		`"x" .. {}`,
		`true .. "x"`,
		`"x" .. print`,
	} {
		src := prelude + "return " + expr
		want, wantErr := rawLua(src)
		vm := newTestVM(t, Config{})
		got, err := tryEval(vm, src)
		switch {
		case wantErr != "":
			if err == nil || !strings.Contains(err.Error(), wantErr) {
				t.Errorf("%s: error %v, want one containing %q", expr, err, wantErr)
			}
		case err != nil:
			t.Errorf("%s: %v, want %s", expr, err, want)
		case got.String() != want:
			t.Errorf("%s = %s, want %s", expr, got.String(), want)
		}
	}
}

// rawLua runs src on a plain gopher-lua state, whose '..' is the VM's instruction.
func rawLua(src string) (value, errText string) {
	L := lua.NewState()
	defer L.Close()
	if err := L.DoString(src); err != nil {
		msg := err.(*lua.ApiError).Object.String()
		_, msg, _ = strings.Cut(msg, ": ") // the chunk's position
		return "", msg
	}
	return L.Get(-1).String(), ""
}

// A concatenation past the string limit is refused, as string.rep's is, before the
// result is allocated; the error points at the line of the '..'.
func TestConcatHasTheStringLimit(t *testing.T) {
	limits := Limits{MaxStringBytes: 1 << 20}
	for _, src := range []string{
		"local s = 'x'\nwhile true do s = s .. s end",
		"local p = ('x'):rep(2^19)\nlocal s = p .. p\nreturn s .. 'y'",
		"local p = ('x'):rep(2^18)\nreturn p .. p .. p .. p .. 'y'",
		"local t = setmetatable({}, {__concat = function(a, b) return b end})\nlocal p = ('x'):rep(2^19)\nreturn t .. p .. p .. 'y'",
	} {
		prog, err := Compile("big.lua", []byte(src), limits)
		if err != nil {
			t.Fatal(err)
		}
		vm := NewVM(Config{Limits: limits})
		err = vm.Run(prog)
		vm.Close()
		var se *ScriptError
		if !errors.As(err, &se) || !strings.Contains(se.Message, "string concatenation (..): the result would be") || !strings.Contains(se.Message, "over the limit of 1048576") {
			t.Errorf("%q: error %v, want the string limit", src, err)
			continue
		}
		if se.Line < 2 || se.Line > 3 {
			t.Errorf("%q: error at line %d, want the line of the '..'", src, se.Line)
		}
	}
	// Just at the limit is allowed.
	vm := newTestVM(t, Config{Limits: limits})
	prog, _ := Compile("edge.lua", []byte("local p = ('x'):rep(2^19) return #(p .. p)"), limits)
	if err := vm.Run(prog); err != nil || vm.Main.String() != "1048576" {
		t.Errorf("a result of exactly the limit: %v, %v", vm.Main, err)
	}
}

// No script can reach or replace what '..' compiles to: the name is not a Lua
// identifier, and each chunk holds the function in a local before its own code runs.
func TestConcatCannotBeReplaced(t *testing.T) {
	limits := Limits{MaxStringBytes: 1 << 16}
	src := `
rawset(_G, "luatool concat", function() return "forged" end)
_G["luatool concat"] = function() return "forged" end
local function inner(a) return function(b) return a .. b end end
local big = ("x"):rep(2^15)
local ok, err = pcall(function() return big .. big .. big end)
return inner("a")("b") .. "|" .. tostring(ok) .. "|" .. tostring(err):match("over the limit") .. "|" .. type(_G["luatool concat"])
`
	vm := newTestVM(t, Config{Limits: limits})
	prog, err := Compile("forge.lua", []byte(src), limits)
	if err != nil {
		t.Fatal(err)
	}
	if err := vm.Run(prog); err != nil {
		t.Fatal(err)
	}
	if got := vm.Main.String(); got != "ab|false|over the limit|function" {
		t.Errorf("got %q: the chunk's '..' was replaced or lost its limit", got)
	}
}

// A Lua module loaded with require is compiled the same way.
func TestConcatInRequiredModules(t *testing.T) {
	limits := Limits{MaxStringBytes: 1 << 16}
	mod, err := Compile("lib/grow.lua", []byte(`return function(s) return s .. s end`), limits)
	if err != nil {
		t.Fatal(err)
	}
	vm := NewVM(Config{Limits: limits, LuaModules: func(name string) (*Program, error) { return mod, nil }})
	defer vm.Close()
	prog, _ := Compile("main.lua", []byte(`local grow = require("grow") local s = "x" for i = 1, 20 do s = grow(s) end return #s`), limits)
	err = vm.Run(prog)
	if err == nil || !strings.Contains(err.Error(), "string concatenation (..)") || !strings.Contains(err.Error(), "lib/grow.lua:1") {
		t.Errorf("error %v, want the string limit at lib/grow.lua:1", err)
	}
}

// table.sort sorts as Lua's does and raises Lua's errors.
func TestTableSort(t *testing.T) {
	vm := newTestVM(t, Config{})
	for src, want := range map[string]string{
		`local t = {5, 3, 9, 1, 1, 7} table.sort(t) return table.concat(t, ",")`:                                                                               "1,1,3,5,7,9",
		`local t = {"b", "c", "a", "ab"} table.sort(t) return table.concat(t, ",")`:                                                                            "a,ab,b,c",
		`local t = {5, 3, 9, 1} table.sort(t, function(a, b) return a > b end) return table.concat(t, ",")`:                                                    "9,5,3,1",
		`local t = {} table.sort(t) return #t`:                                                                                                                 "0",
		`local t = {3, 1, x = "kept"} table.sort(t) return t[1] .. t[2] .. t.x`:                                                                                "13kept",
		`local ok, e = pcall(table.sort, {1, "a"}) return tostring(ok) .. " " .. e`:                                                                            "attempt to compare",
		`local ok, e = pcall(table.sort, {2, 1}, function() error("cmp") end) return tostring(ok) .. " " .. e`:                                                 "false",
		`local mt = {__lt = function(a, b) return a.v < b.v end} local t = {setmetatable({v = 2}, mt), setmetatable({v = 1}, mt)} table.sort(t) return t[1].v`: "1",
	} {
		got, err := tryEval(vm, src)
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		if !strings.Contains(got.String(), want) {
			t.Errorf("%s = %q, want %q", src, got.String(), want)
		}
	}
}

// A sort stops soon after its call's context ends, whatever its size: counted in
// comparisons, so that the test does not depend on the machine's speed.
func TestTableSortStopsAtTheContext(t *testing.T) {
	vm := newTestVM(t, Config{})
	compared := 0
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	vm.L.SetGlobal("cmp", vm.L.NewFunction(func(L *lua.LState) int {
		if compared++; compared == 10 {
			cancel()
		}
		L.Push(lua.LBool(L.CheckNumber(1) < L.CheckNumber(2)))
		return 1
	}))
	prog, _ := Compile("sort.lua", []byte(`local t = {} for i = 1, 1e5 do t[i] = (i * 7919) % 1000003 end return function() table.sort(t, cmp) end`), Limits{})
	if err := vm.Run(prog); err != nil {
		t.Fatal(err)
	}
	_, err := vm.Call(&Call{Context: ctx}, vm.Main)
	var se *ScriptError
	if !errors.As(err, &se) || !se.Timeout() && !strings.Contains(se.Message, "cancel") {
		t.Fatalf("error %v, want the call stopped", err)
	}
	if compared > 10+1024 {
		t.Errorf("the sort ran %d comparisons after its context ended, want at most 1024", compared-10)
	}
}

// json.decode of a large document stops the call at its context, and so does the
// conversion of a decoded document into Lua values.
func TestJSONDecodeStopsAtTheContext(t *testing.T) {
	vm := newTestVM(t, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	doc := "[" + strings.Repeat("[1,2,3],", jsonAsideBytes/8+1) + "1]"
	vm.L.SetContext(ctx)
	defer vm.L.RemoveContext()
	vm.L.Push(vm.L.NewFunction(func(L *lua.LState) int {
		_, err := decodeJSON(L, doc)
		t.Errorf("decodeJSON returned (%v) after its context ended", err)
		return 0
	}))
	err := vm.L.PCall(0, 0, nil)
	if err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Errorf("decode: error %v, want the context's", err)
	}
	values := make([]any, 10000)
	for i := range values {
		values[i] = float64(i)
	}
	if _, err := vm.ToLua(values); err == nil || !strings.Contains(err.Error(), "stopped: cancelled") {
		t.Errorf("conversion: error %v, want it stopped", err)
	}
}

// Every place an expression can stand is rewritten: a '..' the pass missed would
// make Compile fail (checkNoConcat), and one gopher-lua compiled raw is caught.
func TestConcatRewrittenEverywhere(t *testing.T) {
	src := `
local a, b = "a" .. 1, {["k" .. 1] = "v" .. 2, "w" .. 3}
b["x" .. 1] = a .. a
b.y = function(...) return ... .. "r" end
function b.z(s) return s .. "z" end
function b:m(s) return self.y(s .. "m") end
local t = {} t[#t + 1] = a .. "i"
if a .. "" == "a1" then a = a .. "t" elseif (a .. "") then a = "e" .. a else a = a .. "f" end
while a .. "" ~= a do a = a .. "" end
repeat a = a .. "" until #(a .. "") > 0
for i = #("x" .. "y"), #("x" .. "yz"), #("x" .. "") do a = a .. i end
for k, v in pairs({["p" .. 1] = "q" .. 1}) do a = a .. k .. v end
local _ = tostring("p" .. a)
local n = -#("a" .. "b") + #("c" .. "d") * 2
local ok = not ("a" .. "b") and ("a" .. "b") or ("c" .. "d")
return a .. b:m("s") .. b.z("q") .. n .. tostring(ok) .. b["x" .. 1]
`
	prog, err := Compile("everywhere.lua", []byte(src), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	vm := newTestVM(t, Config{})
	if err := vm.Run(prog); err != nil {
		t.Fatal(err)
	}
	want, _ := rawLua(src)
	if got := vm.Main.String(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	chunk, err := parse.Parse(strings.NewReader(`return function() return "a" .. "b" end`), "raw.lua")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := lua.Compile(chunk, "raw.lua")
	if err != nil {
		t.Fatal(err)
	}
	if err := checkNoConcat(raw); err == nil {
		t.Error("checkNoConcat found nothing in a function compiled with gopher-lua's '..'")
	}
}
