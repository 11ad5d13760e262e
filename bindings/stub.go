package bindings

import (
	"context"
	"reflect"
	"sort"

	lua "github.com/yuin/gopher-lua"
)

// Stubs stand in for host functions in the calls made under a context (WithStubs),
// so that a test runs a tool that calls an API, runs commands or reads files without
// the world: luatool test's t:stub. Every function of every Module goes through
// them, whatever the module, so a stub needs nothing from the module it replaces.
// json, which is part of every state and touches nothing, is not a Module and has
// no stubs.
//
// A stub replaces the function whole: the real one's argument checks and
// confinement do not run, only the rule that no host function of a module that is
// not Pure runs while a tool file loads.
type Stubs interface {
	// Stub returns the function standing for the host function fn (qualified, as
	// in "http.get") in this call, or nil to run the real one. It is asked at every
	// call of fn, on the goroutine of the VM that calls it.
	Stub(fn string) lua.LGFunction
}

type stubsKey struct{}

// WithStubs returns a context whose calls have the host functions s stands for
// replaced: a VM.Call under it, or under a context derived from it, calls s's
// functions instead.
func WithStubs(ctx context.Context, s Stubs) context.Context {
	return context.WithValue(ctx, stubsKey{}, s)
}

// stubsOf returns the Stubs of ctx, or nil.
func stubsOf(ctx context.Context) Stubs {
	s, _ := ctx.Value(stubsKey{}).(Stubs)
	return s
}

// stubbable returns fn, or the current call's stub of the host function name when
// there is one.
func (vm *VM) stubbable(name string, fn lua.LGFunction) lua.LGFunction {
	return func(L *lua.LState) int {
		if vm.stubs != nil {
			if stub := vm.stubs.Stub(name); stub != nil {
				return stub(L)
			}
		}
		return fn(L)
	}
}

// ModuleFunctions returns the names of the functions of m that Stubs may stand for:
// its Funcs and the Values that are Go functions, sorted.
func ModuleFunctions(m *Module) []string {
	names := make([]string, 0, len(m.Funcs)+len(m.Values))
	for name := range m.Funcs {
		names = append(names, name)
	}
	for name, v := range m.Values {
		if reflect.TypeOf(v).Kind() == reflect.Func {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}
