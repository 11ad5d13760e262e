package bindings

import (
	lua "github.com/yuin/gopher-lua"
	luar "layeh.com/gopher-luar"
)

// A Module is a set of host functions and values that scripts load with
// require(Name). Modules are built once by the host and shared by every VM; each VM
// builds its own module table the first time a script requires it.
//
// Funcs are gopher-lua functions with full control of arguments and results; they
// should check arguments with the L.Check* helpers and may find the current call with
// CurrentCall. Values are Go values (functions, structs, maps) exposed through
// gopher-luar: a Go function's arguments and results are converted by reflection.
// Prefer Funcs for anything a script must not be able to misuse: gopher-luar exposes
// every exported field and method of a value it wraps.
type Module struct {
	// Name is what scripts pass to require.
	Name string
	// Doc is a one-line description, shown by luatool describe and in type definitions.
	Doc string
	// Funcs are the module's functions, by name.
	Funcs map[string]lua.LGFunction
	// Values are Go values exposed through gopher-luar, by name.
	Values map[string]any
}

func (m *Module) open(vm *VM) lua.LValue {
	t := vm.L.CreateTable(0, len(m.Funcs)+len(m.Values))
	for name, fn := range m.Funcs {
		t.RawSetString(name, vm.L.NewFunction(fn))
	}
	for name, v := range m.Values {
		t.RawSetString(name, luar.New(vm.L, v))
	}
	return t
}
