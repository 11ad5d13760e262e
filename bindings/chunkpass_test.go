package bindings

import (
	"strings"
	"testing"
)

// Every generic for iterates as Lua says, the forms gopher-lua miscompiles included
// (a field of a call's result called in the loop's expression), and an error in a
// loop's body or expression names its own line.
func TestGenericForOverLocals(t *testing.T) {
	prelude := `
local t = { f = function() local i = 0 return function() i = i + 1 if i <= 3 then return i end end end }
local function get() return t end
local n = 0
`
	for _, loop := range []string{
		`for x in get().f() do n = n + x end`,
		`for x in (get().f()) do n = n + x end`,
		`for x in get()["f"]() do n = n + x end`,
		`for x in t.f() do n = n + x end`,
		`local it = get().f() for x in it do n = n + x end`,
		`for _, x in ipairs({1, 2, 3}) do n = n + x end`,
		`for _, x in next, {1, 2, 3} do n = n + x end`,
		`for x in get().f() do for y in get().f() do n = n + 1 end end n = n - 3`,
		`local function sum() local s = 0 for x in get().f() do s = s + x end return s end n = sum()`,
	} {
		vm := newTestVM(t, Config{})
		got, err := tryEval(vm, prelude+loop+"\nreturn n")
		if err != nil || got.String() != "6" {
			t.Errorf("%s = %v (%v), want 6", loop, got, err)
		}
	}

	vm := newTestVM(t, Config{})
	_, err := tryEval(vm, prelude+"for x in get().f() do\n  error('in the body')\nend")
	if err == nil || !strings.Contains(err.Error(), ":6: in the body") {
		t.Errorf("an error in the body: %v, want it at line 6", err)
	}
	_, err = tryEval(vm, prelude+"\nfor x in get().g() do end")
	if err == nil || !strings.Contains(err.Error(), ":6:") {
		t.Errorf("an error in the expression: %v, want it at line 6", err)
	}
}
