package bindings

import (
	"context"
	"reflect"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// stubMap stands for the functions it holds, by qualified name.
type stubMap map[string]lua.LGFunction

func (s stubMap) Stub(fn string) lua.LGFunction { return s[fn] }

// A call under a context with Stubs runs the stubs of the functions they stand for,
// Funcs and function Values alike, and the real functions otherwise; a call without
// them, or after them, runs the real ones. The rule of the load phase holds for a
// stub too.
func TestStubsStandForHostFunctions(t *testing.T) {
	m := &Module{Name: "world",
		Funcs:  map[string]lua.LGFunction{"fetch": func(L *lua.LState) int { L.Push(lua.LString("real fetch")); return 1 }},
		Values: map[string]any{"lookup": func(s string) string { return "real lookup " + s }, "other": func() string { return "real other" }},
	}
	vm := newTestVM(t, Config{Modules: []*Module{m}})
	fn := func(src string) *lua.LFunction {
		prog, err := Compile("stub.lua", []byte(src), Limits{})
		if err != nil {
			t.Fatal(err)
		}
		f := vm.L.NewFunctionFromProto(prog.proto)
		f.Env = vm.newEnvironment()
		return f
	}
	probe := fn(`local w = require("world"); return w.fetch(), w.lookup("x"), w.other()`)
	stubs := stubMap{
		"world.fetch":  func(L *lua.LState) int { L.Push(lua.LString("stub fetch")); return 1 },
		"world.lookup": func(L *lua.LState) int { L.Push(lua.LString("stub lookup " + L.CheckString(1))); return 1 },
	}
	run := func(ctx context.Context, access Access) ([]string, error) {
		out, err := vm.Call(&Call{Context: ctx, Access: access}, probe)
		var got []string
		for _, v := range out {
			got = append(got, v.String())
		}
		return got, err
	}
	got, err := run(WithStubs(context.Background(), stubs), AccessRead)
	if want := []string{"stub fetch", "stub lookup x", "real other"}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("stubbed: %q %v, want %q", got, err, want)
	}
	got, err = run(context.Background(), AccessRead)
	if want := []string{"real fetch", "real lookup x", "real other"}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("after: %q %v, want %q", got, err, want)
	}
	if _, err := run(WithStubs(context.Background(), stubs), AccessNone); err == nil || !strings.Contains(err.Error(), "world.fetch is not available while the tool file loads") {
		t.Errorf("a stub in the load phase: %v", err)
	}
	if got := ModuleFunctions(m); !reflect.DeepEqual(got, []string{"fetch", "lookup", "other"}) {
		t.Errorf("ModuleFunctions = %v", got)
	}
}
