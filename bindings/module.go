package bindings

import (
	lua "github.com/yuin/gopher-lua"
)

// A Module is a set of host functions and values that scripts load with
// require(Name). Modules are built once by the host and shared by every VM; each VM
// builds its own module table the first time a script requires it.
//
// Funcs are gopher-lua functions with full control of arguments and results; they
// should check arguments with Args and may find the current call with CurrentCall.
//
// Values are Go values. A function is called through gopher-luar, which converts its
// arguments from Lua (a number that does not fit the parameter's type is an argument
// error, not a silent wrap). Everything else, and whatever a function returns, reaches
// Lua as a copy made of plain values and tables: structs by their exported fields (by
// json name when tagged), slices and arrays as arrays, maps as tables, errors as their
// message. Scripts never hold a live Go object, so they cannot change host state, call
// its methods, lock its mutexes or use its channels; a value containing a channel or
// a function is refused when the module is opened.
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

func (m *Module) open(vm *VM) *lua.LTable {
	t := vm.L.CreateTable(0, len(m.Funcs)+len(m.Values))
	for name, fn := range m.Funcs {
		t.RawSetString(name, vm.L.NewFunction(fn))
	}
	for name, v := range m.Values {
		t.RawSetString(name, vm.exposeValue(m.Name+"."+name, v))
	}
	return t
}
