package bindings

import (
	"fmt"
	"reflect"
	"runtime/debug"

	lua "github.com/yuin/gopher-lua"
)

// A HostPanic is a Go panic in a host function: a bug in the host, not in the script.
// The call fails with a Lua error naming the function (which a script's pcall can
// catch), the state is discarded after the call, and the ScriptError of a call that
// failed because of it has the HostPanic as its Cause, with the Go stack.
type HostPanic struct {
	// Func is the host function, as in "fs.read".
	Func string
	// Value is what was passed to panic.
	Value any
	// Stack is the Go stack of the panic.
	Stack string
}

func (p *HostPanic) Error() string {
	return fmt.Sprintf("host function %s panicked: %v", p.Func, p.Value)
}

// guard recovers a Go panic in fn into a Lua error, marking the VM broken: the host
// code may have left locks held or objects half-changed, so the state is not reused.
func (vm *VM) guard(name string, fn lua.LGFunction) lua.LGFunction {
	return func(L *lua.LState) int {
		defer func() {
			r := recover()
			if r == nil {
				return
			}
			if _, isLua := r.(*lua.ApiError); isLua {
				panic(r) // a Lua error raised by the function: not a host bug
			}
			vm.broken = true
			vm.hostPanic = &HostPanic{Func: name, Value: r, Stack: string(debug.Stack())}
			L.RaiseError("%s", vm.hostPanic.Error())
		}()
		return fn(L)
	}
}

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
// a function is refused when the module is opened, and a function a function returns
// is exposed as the module's own are. A Lua function passed for a function (or any)
// parameter reaches Go as a Go function that runs it only while the call that passed
// it runs and waits in a host function: kept and called after the call, or from
// another goroutine while the script runs, it is refused with a CallbackError. A
// table holding a function is refused as an argument.
type Module struct {
	// Name is what scripts pass to require.
	Name string
	// Doc is a one-line description, shown by luatool describe and in type definitions.
	Doc string
	// Pure declares that the module's functions touch nothing outside the state (they
	// compute, as json and path do): they run in every phase, the load phase included.
	// The functions of a module that is not Pure refuse to run while a tool file loads
	// (AccessNone), so that a new module fails closed.
	Pure bool
	// Funcs are the module's functions, by name.
	Funcs map[string]lua.LGFunction
	// Values are Go values exposed through gopher-luar, by name.
	Values map[string]any
	// Roots are the directories the module's functions reach on the file system, for
	// the host to check against the directories it means tools to reach (the Lua
	// loader reports them to the engine, whose New refuses roots of its own that
	// differ). Nil for a module that reaches no file.
	Roots []string
}

func (m *Module) open(vm *VM) *lua.LTable {
	t := vm.L.CreateTable(0, len(m.Funcs)+len(m.Values))
	for name, fn := range m.Funcs {
		fn = vm.stubbable(m.Name+"."+name, fn)
		if !m.Pure {
			fn = loadPhaseGuard(m.Name+"."+name, fn)
		}
		t.RawSetString(name, vm.L.NewFunction(vm.guard(m.Name+"."+name, fn)))
	}
	hasData := false
	for name, v := range m.Values {
		t.RawSetString(name, vm.exposeValue(m.Name+"."+name, v, m.Pure))
		hasData = hasData || reflect.TypeOf(v).Kind() != reflect.Func
	}
	if hasData {
		vm.moduleData = append(vm.moduleData, openModule{m, t})
	}
	return t
}

// loadPhaseGuard refuses fn while a tool file loads: a function of a module that is
// not Pure may read or touch the world.
func loadPhaseGuard(name string, fn lua.LGFunction) lua.LGFunction {
	return func(L *lua.LState) int {
		Require(L, name, AccessRead)
		return fn(L)
	}
}

// CheckModules reports the first programming error in a set of host modules: two of
// one name, one named json, a value Lua cannot be given. Hosts check their modules
// once with it, up front; NewVM panics with the same error.
func CheckModules(mods []*Module) error {
	seen := map[string]bool{}
	for _, m := range mods {
		if seen[m.Name] || m.Name == jsonModuleName {
			return fmt.Errorf("module %s registered twice", m.Name)
		}
		seen[m.Name] = true
		for name, v := range m.Values {
			if err := checkExposable(v); err != nil {
				return fmt.Errorf("module value %s.%s: %v", m.Name, name, err)
			}
		}
	}
	return nil
}

// openModule is a module a VM has opened whose values include data.
type openModule struct {
	m *Module
	t *lua.LTable
}

// refreshModuleData copies the data values of the opened modules again, so that what
// one call did to a copy (the copies are plain tables) is not seen by the next.
func (vm *VM) refreshModuleData() {
	for _, om := range vm.moduleData {
		for name, v := range om.m.Values {
			if reflect.TypeOf(v).Kind() != reflect.Func {
				om.t.RawSetString(name, vm.exposeValue(om.m.Name+"."+name, v, om.m.Pure))
			}
		}
	}
}
