package bindings

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// newTestVM builds a VM that is closed when the test ends.
func newTestVM(t *testing.T, cfg Config) *VM {
	t.Helper()
	vm := NewVM(cfg)
	t.Cleanup(vm.Close)
	return vm
}

// eval runs src as a main chunk named "test.lua" on vm and returns what it returned.
func eval(t *testing.T, vm *VM, src string) lua.LValue {
	t.Helper()
	v, err := tryEval(vm, src)
	if err != nil {
		t.Fatalf("running %q: %v", src, err)
	}
	return v
}

// tryEval runs src as eval does, with write access: the tests of host functions call
// them from the main chunk, which in a tool file (vm.Run) is the load phase and has
// none (TestLoadPhaseHasNoAccess).
func tryEval(vm *VM, src string) (lua.LValue, error) {
	prog, err := Compile("test.lua", []byte(src), Limits{})
	if err != nil {
		return nil, err
	}
	vm.chunk = prog.Name
	fn := vm.L.NewFunctionFromProto(prog.proto)
	fn.Env = vm.newEnvironment()
	out, err := vm.Call(&Call{Access: AccessWrite}, fn)
	if err != nil {
		return nil, err
	}
	vm.lockEnvironment(fn.Env)
	vm.Main = lua.LNil
	if len(out) > 0 {
		vm.Main = out[0]
	}
	return vm.Main, nil
}

// fromLua evaluates src and converts its value to JSON.
func fromLua(t *testing.T, vm *VM, src string) (any, error) {
	t.Helper()
	return vm.FromLua(eval(t, vm, src))
}

// conversionError asserts err is a *ConversionError at path whose reason contains reason.
func conversionError(t *testing.T, err error, path, reason string) {
	t.Helper()
	var ce *ConversionError
	if !errors.As(err, &ce) {
		t.Fatalf("error = %v (%T), want a *ConversionError", err, err)
	}
	if ce.Path != path {
		t.Errorf("error path = %q, want %q (error: %v)", ce.Path, path, err)
	}
	if !strings.Contains(ce.Reason, reason) {
		t.Errorf("error reason = %q, want it to contain %q", ce.Reason, reason)
	}
}

func TestEmptyArrayAndObjectRoundTrip(t *testing.T) {
	vm := newTestVM(t, Config{})
	tests := []struct{ src, want string }{
		{`return json.encode(json.decode("[]"))`, `[]`},
		{`return json.encode(json.decode("{}"))`, `{}`},
		{`return json.encode(json.decode('{"a":[],"b":{},"c":[[]],"d":[{}]}'))`, `{"a":[],"b":{},"c":[[]],"d":[{}]}`},
		{`return json.encode(json.array())`, `[]`},
		{`return json.encode(json.array({1, 2}))`, `[1,2]`},
		{`return json.encode({})`, `{}`},
		{`return json.encode({1, 2, 3})`, `[1,2,3]`},
		// A decoded array that the script empties stays an array.
		{`local a = json.decode("[1]"); a[1] = nil; return json.encode(a)`, `[]`},
	}
	for _, tt := range tests {
		got := eval(t, vm, `local json = require("json") `+tt.src)
		if got.String() != tt.want {
			t.Errorf("%s\n got  %s\n want %s", tt.src, got, tt.want)
		}
	}
	// The same from the Go side: ToLua then FromLua.
	for _, in := range []any{[]any{}, map[string]any{}, map[string]any{"a": []any{}, "o": map[string]any{}}} {
		lv, err := vm.ToLua(in)
		if err != nil {
			t.Fatal(err)
		}
		out, err := vm.FromLua(lv)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(out, in) {
			t.Errorf("round trip of %#v gave %#v", in, out)
		}
	}
}

func TestIsArrayMarksDecodedArrays(t *testing.T) {
	vm := newTestVM(t, Config{})
	got := eval(t, vm, `local json = require("json")
		return tostring(json.isarray(json.decode("[]"))) .. " " .. tostring(json.isarray(json.decode("{}"))) .. " " ..
			tostring(json.isarray({})) .. " " .. tostring(json.isarray(json.array({})))`)
	if got.String() != "true false false true" {
		t.Errorf("isarray answers = %s", got)
	}
}

func TestJSONNullIsDistinctFromNil(t *testing.T) {
	vm := newTestVM(t, Config{})
	got := eval(t, vm, `local json = require("json")
		local v = json.decode('{"a":null,"list":[1,null,3]}')
		return table.concat({
			tostring(v.a == json.null), tostring(v.a ~= nil), tostring(#v.list), tostring(v.list[2] == json.null),
			tostring(json.null), type(json.null), json.encode(v), json.encode({a = json.null, b = nil}),
		}, " ")`)
	want := `true true 3 true null userdata {"a":null,"list":[1,null,3]} {"a":null}`
	if got.String() != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}

	// Go side: nil becomes json.null, json.null becomes nil, a key set to nil in Lua disappears.
	lv, err := vm.ToLua(nil)
	if err != nil {
		t.Fatal(err)
	}
	if lv != vm.Null() {
		t.Errorf("ToLua(nil) = %v, want json.null", lv)
	}
	if v, err := vm.FromLua(vm.Null()); err != nil || v != nil {
		t.Errorf("FromLua(json.null) = %v, %v; want nil", v, err)
	}
	obj, err := fromLua(t, vm, `local json = require("json") return {a = json.null, b = nil}`)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(obj, map[string]any{"a": nil}) {
		t.Errorf("FromLua({a = json.null, b = nil}) = %#v, want map[a:<nil>]", obj)
	}
	// json.null's metatable is locked.
	if _, err := tryEval(vm, `local json = require("json") setmetatable(json.null, {})`); err == nil {
		t.Error("setmetatable(json.null, ...) succeeded")
	}
}

func TestIntegersExactUpTo2Pow53(t *testing.T) {
	vm := newTestVM(t, Config{})
	got := eval(t, vm, `local json = require("json")
		local n = json.decode("9007199254740992")
		return tostring(n == 2^53) .. " " .. json.encode(n) .. " " .. json.encode({-2^53})`)
	if got.String() != "true 9007199254740992 [-9007199254740992]" {
		t.Errorf("got %s", got)
	}
	lv, err := vm.ToLua(float64(1 << 53))
	if err != nil || lv != lua.LNumber(1<<53) {
		t.Errorf("ToLua(2^53) = %v, %v", lv, err)
	}
	lv, err = vm.ToLua(json.Number("9007199254740992"))
	if err != nil || lv != lua.LNumber(1<<53) {
		t.Errorf("ToLua(json.Number 2^53) = %v, %v", lv, err)
	}
	for _, in := range []any{int(42), int64(-7)} {
		lv, err := vm.ToLua(in)
		if err != nil || lv.Type() != lua.LTNumber {
			t.Errorf("ToLua(%T) = %v, %v", in, lv, err)
		}
	}
}

func TestBigIntegerLiteralRejectedWithPath(t *testing.T) {
	vm := newTestVM(t, Config{})
	// 2^53 + 2 is representable as a float64 but is not a safe integer.
	got := eval(t, vm, `local json = require("json")
		local v, err = json.decode('{"ids":[1, 9007199254740994]}')
		return tostring(v) .. " | " .. tostring(err)`)
	if !strings.HasPrefix(got.String(), "nil | ") || !strings.Contains(got.String(), "$.ids[1]") {
		t.Errorf("json.decode of a big integer = %s; want nil and an error naming $.ids[1]", got)
	}
	_, err := vm.ToLua(map[string]any{"n": json.Number("123456789012345678901")})
	if err == nil || !strings.Contains(err.Error(), "$.n") {
		t.Errorf("ToLua(big json.Number) error = %v, want one naming $.n", err)
	}
}

// TestBigIntegerJustPast2Pow53Rejected exposes a bug: 2^53+1 rounds to 2^53 when
// parsed as a float64, so the check in jsonvalue.number compares the rounded value
// and lets the literal through, silently changed.
func TestBigIntegerJustPast2Pow53Rejected(t *testing.T) {
	vm := newTestVM(t, Config{})
	got := eval(t, vm, `local json = require("json")
		local v, err = json.decode('{"id": 9007199254740993}')
		if v then return "decoded as " .. json.encode(v) end
		return err`)
	if !strings.Contains(got.String(), "$.id") {
		t.Errorf("json.decode of 2^53+1 = %q; want an error naming $.id", got)
	}
}

// Infinity is written 1/0 here: gopher-lua's math.huge is math.MaxFloat64, a finite number.
func TestNaNAndInfinityAreErrors(t *testing.T) {
	vm := newTestVM(t, Config{})
	tests := []struct{ src, path string }{
		{`return 0/0`, "$"},
		{`return 1/0`, "$"},
		{`return {x = -1/0}`, "$.x"},
		{`return {list = {1, 0/0}}`, "$.list[1]"},
	}
	for _, tt := range tests {
		_, err := fromLua(t, vm, tt.src)
		conversionError(t, err, tt.path, "NaN and infinity")
	}
	for _, tt := range []struct {
		v    any
		path string
	}{
		{math.NaN(), "$"},
		{map[string]any{"a": []any{1.0, math.Inf(1)}}, "$.a[1]"},
	} {
		_, err := vm.ToLua(tt.v)
		conversionError(t, err, tt.path, "NaN and infinity")
	}
	if got := eval(t, vm, `local json = require("json") return select(2, pcall(json.encode, {n = 0/0}))`); !strings.Contains(got.String(), "$.n") {
		t.Errorf("json.encode(NaN) error = %s, want it to name $.n", got)
	}
}

func TestCyclesAreErrorsWithPath(t *testing.T) {
	vm := newTestVM(t, Config{})
	tests := []struct{ src, path string }{
		{`local t = {} t.self = t return t`, "$.self"},
		{`local t = {} t[1] = t return t`, "$[0]"},
		{`local a, b = {}, {} a.b = b b.list = {a} return {root = a}`, "$.root.b.list[0]"},
	}
	for _, tt := range tests {
		_, err := fromLua(t, vm, tt.src)
		conversionError(t, err, tt.path, "cycle")
	}
	// A table referenced twice without a cycle is fine.
	v, err := fromLua(t, vm, `local s = {1} return {a = s, b = s}`)
	if err != nil {
		t.Fatalf("shared table: %v", err)
	}
	if !reflect.DeepEqual(v, map[string]any{"a": []any{1.0}, "b": []any{1.0}}) {
		t.Errorf("shared table converted to %#v", v)
	}
}

func TestDepthLimitIsAnErrorWithPath(t *testing.T) {
	vm := newTestVM(t, Config{Limits: Limits{MaxDepth: 3}})
	// Tables at depths 0..3 are allowed; a fifth level of tables is not.
	if _, err := fromLua(t, vm, `return {a = {a = {a = {a = 1}}}}`); err != nil {
		t.Errorf("four levels of tables with MaxDepth 3: %v", err)
	}
	_, err := fromLua(t, vm, `return {a = {a = {a = {a = {}}}}}`)
	conversionError(t, err, "$.a.a.a.a", "deeper than 3")

	deep := any("leaf")
	for i := 0; i < 10; i++ {
		deep = []any{deep}
	}
	_, err = vm.ToLua(deep)
	var ce *ConversionError
	if !errors.As(err, &ce) || !strings.HasPrefix(ce.Path, "$[0][0][0]") || !strings.Contains(ce.Reason, "deeper than 3") {
		t.Errorf("ToLua of 10 nested arrays with MaxDepth 3: %v", err)
	}

	// The default limit stops a deep structure built in Lua.
	vm2 := newTestVM(t, Config{})
	_, err = fromLua(t, vm2, `local t = {} local cur = t for i = 1, 500 do cur.n = {} cur = cur.n end return t`)
	if !errors.As(err, &ce) || !strings.HasPrefix(ce.Path, "$.n.n.n") || !strings.Contains(ce.Reason, "deeper than 128") {
		t.Errorf("500 levels with the default limit: %v", err)
	}
}

// TestDepthLimitSymmetric checks that what FromLua accepts, ToLua accepts too, so a
// value a script stores (ctx.state:set) can be read back (ctx.state:get).
func TestDepthLimitSymmetric(t *testing.T) {
	vm := newTestVM(t, Config{Limits: Limits{MaxDepth: 3}})
	v, err := fromLua(t, vm, `return {a = {a = {a = {a = 1}}}}`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := vm.ToLua(v); err != nil {
		t.Errorf("FromLua accepted a value ToLua rejects: %v", err)
	}
}

func TestMixedAndSparseTablesNameThePath(t *testing.T) {
	vm := newTestVM(t, Config{})
	tests := []struct{ src, path, reason string }{
		{`return {1, 2, a = 3}`, "$", "mixes array indices and string keys"},
		{`return {x = {1, a = 2}}`, "$.x", "mixes"},
		{`local json = require("json") return {list = json.array({k = 1})}`, "$.list", "mixes"},
		{`return {1, nil, 3}`, "$", "sparse: index 2 is missing"},
		{`return {items = {[2] = "b"}}`, "$.items", "sparse: index 1 is missing"},
		{`return {deep = {{}, {[1] = 1, [3] = 3}}}`, "$.deep[1]", "sparse: index 2 is missing"},
	}
	for _, tt := range tests {
		_, err := fromLua(t, vm, tt.src)
		conversionError(t, err, tt.path, tt.reason)
	}
}

func TestNonStringNonIntegerKeys(t *testing.T) {
	vm := newTestVM(t, Config{})
	tests := []struct{ src, path, reason string }{
		{`return {[1.5] = 1}`, "$", "key 1.5 is not a positive integer index"},
		{`return {[0] = 1}`, "$", "key 0 is not a positive integer index"},
		{`return {o = {[-1] = 1}}`, "$.o", "key -1 is not a positive integer index"},
		{`return {[true] = 1}`, "$", "key of type boolean"},
		{`return {k = {[{}] = 1}}`, "$.k", "key of type table"},
	}
	for _, tt := range tests {
		_, err := fromLua(t, vm, tt.src)
		conversionError(t, err, tt.path, tt.reason)
	}
}

func TestFunctionsAndUserdataRejectedWithPath(t *testing.T) {
	vm := newTestVM(t, Config{})
	tests := []struct{ src, path, reason string }{
		{`return print`, "$", "function"},
		{`return {f = function() end}`, "$.f", "function value cannot be converted"},
		{`return {["a b"] = {cb = print}}`, `$["a b"].cb`, "function"},
		{`return {1, {co = coroutine.create(function() end)}}`, "$[1].co", "thread"},
	}
	for _, tt := range tests {
		_, err := fromLua(t, vm, tt.src)
		conversionError(t, err, tt.path, tt.reason)
	}
	tbl := vm.L.NewTable()
	inner := vm.L.NewTable()
	inner.RawSetString("u", vm.L.NewUserData())
	tbl.RawSetString("x", inner)
	_, err := vm.FromLua(tbl)
	conversionError(t, err, "$.x.u", "userdata")

	// Go values that are not JSON are rejected on the way in, too.
	_, err = vm.ToLua(map[string]any{"c": make(chan int)})
	conversionError(t, err, "$.c", "not a JSON value")
}

func TestEncodedObjectsHaveSortedKeys(t *testing.T) {
	vm := newTestVM(t, Config{})
	got := eval(t, vm, `local json = require("json")
		return json.encode({zeta = 1, alpha = {y = 2, x = 1, ["B"] = 0}, mid = {3, 2, 1}})`)
	want := `{"alpha":{"B":0,"x":1,"y":2},"mid":[3,2,1],"zeta":1}`
	if got.String() != want {
		t.Errorf("json.encode = %s\nwant        %s", got, want)
	}
	// Deterministic across runs, whatever the table's internal order.
	for i := 0; i < 20; i++ {
		if again := eval(t, vm, `local json = require("json")
			local t = {} for _, k in ipairs({"q","w","e","r","t","y","u","i","o","p"}) do t[k] = k end
			return json.encode(t)`); again.String() != `{"e":"e","i":"i","o":"o","p":"p","q":"q","r":"r","t":"t","u":"u","w":"w","y":"y"}` {
			t.Fatalf("json.encode not sorted: %s", again)
		}
	}
}

func TestFromLuaValueModel(t *testing.T) {
	vm := newTestVM(t, Config{})
	v, err := fromLua(t, vm, `return {s = "x", n = 1.5, b = false, list = {"a", {k = true}}, empty = {}}`)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"s": "x", "n": 1.5, "b": false, "list": []any{"a", map[string]any{"k": true}}, "empty": map[string]any{}}
	if !reflect.DeepEqual(v, want) {
		t.Errorf("FromLua = %#v\nwant %#v", v, want)
	}
	if v, err := vm.FromLua(lua.LNil); v != nil || err != nil {
		t.Errorf("FromLua(nil) = %v, %v", v, err)
	}
}

func TestJSONDecodeErrorsAreReturnedNotRaised(t *testing.T) {
	vm := newTestVM(t, Config{})
	got := eval(t, vm, `local json = require("json")
		local v, err = json.decode("{not json")
		return tostring(v) .. " | " .. err`)
	if !strings.HasPrefix(got.String(), "nil | json.decode: ") {
		t.Errorf("got %s", got)
	}
}

func TestJSONEncodeIndent(t *testing.T) {
	vm := newTestVM(t, Config{})
	got := eval(t, vm, `local json = require("json")
		return json.encode({b = {1, json.array()}, a = {}, c = "<x>"}, {indent = 1})`)
	want := "{\n \"a\": {},\n \"b\": [\n  1,\n  []\n ],\n \"c\": \"<x>\"\n}"
	if got.String() != want {
		t.Errorf("indent 1:\n got %q\nwant %q", got, want)
	}
	if got := eval(t, vm, `return require("json").encode({a = {1}}, {indent = 0})`); got.String() != `{"a":[1]}` {
		t.Errorf("indent 0: %s", got)
	}
	for src, msg := range map[string]string{
		`return require("json").encode({}, {indent = 9})`:   "bad argument #2 to 'json.encode' (option 'indent': 0 to 8 spaces expected, got 9)",
		`return require("json").encode({}, {indent = -1})`:  "bad argument #2 to 'json.encode' (option 'indent': 0 to 8 spaces expected, got -1)",
		`return require("json").encode({}, {indnet = 2})`:   "unknown option 'indnet', did you mean 'indent'?",
		`return require("json").encode({}, {indent = "x"})`: "option 'indent': number expected, got string",
	} {
		if _, err := tryEval(vm, src); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: error %v, want %q", src, err, msg)
		}
	}
}

func TestJSONEncodeOverTheStringLimit(t *testing.T) {
	vm := newTestVM(t, Config{Limits: Limits{MaxStringBytes: 1000}})
	_, err := tryEval(vm, `local t = {} for i = 1, 100 do t[i] = {{{i}}} end
		return require("json").encode(t, {indent = 8})`)
	if err == nil || !strings.Contains(err.Error(), "json.encode: the result would be") {
		t.Errorf("error %v, want json.encode over the limit", err)
	}
}

// Mirrors holds for a fresh conversion, and fails for every change Lua code can make
// to it: a value replaced, a key added or removed at any depth, a metatable set, an
// array grown, null turned into nil.
func TestMirrors(t *testing.T) {
	vm := newTestVM(t, Config{})
	v := map[string]any{"s": "x", "n": 1.5, "b": true, "null": nil, "list": []any{1.0, "two"}, "obj": map[string]any{"deep": "kept"}, "empty": []any{}}
	changes := map[string]string{
		"value":              `t.s = "y"`,
		"key added":          `t.extra = 1`,
		"key removed":        `t.b = nil`,
		"nested value":       `t.obj.deep = "changed"`,
		"nested key":         `t.obj.more = 1`,
		"array grown":        `t.list[3] = 3`,
		"empty array filled": `t.empty[1] = 1`,
		"number key":         `t[1] = 1`,
		"metatable":          `setmetatable(t, {__index = function() return 1 end})`,
		"null to nil":        `t.null = nil`,
		"null to false":      `t.null = false`,
	}
	for name, change := range changes {
		lv, err := vm.ToLua(v)
		if err != nil {
			t.Fatal(err)
		}
		if !vm.Mirrors(lv, v) {
			t.Fatalf("%s: a fresh conversion does not mirror its value", name)
		}
		vm.L.SetGlobal("t", lv)
		if err := vm.L.DoString(change); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if vm.Mirrors(lv, v) {
			t.Errorf("%s (%s): still said to mirror the value", name, change)
		}
	}
	lv, _ := vm.ToLua(v)
	vm.L.SetGlobal("t", lv)
	if err := vm.L.DoString(`t.s = "y"; t.s = "x"`); err != nil || !vm.Mirrors(lv, v) {
		t.Errorf("a value changed and put back mirrors it again (%v)", err)
	}
	if vm.Mirrors(lua.LNil, nil) {
		t.Error("Lua nil mirrors JSON null; ToLua makes json.null")
	}
}
