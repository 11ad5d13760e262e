package luatest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/internal/spell"
)

// caseStubs are the module stubs of one case (t:stub), for the tools' calls made
// with t:call. They are the case's own: each case has a new engine and new stubs,
// so a stub never outlives its case. A stub replaces its module whole for the
// tools: a function of the module the stub table leaves out fails when a tool calls
// it, so that a test never reaches the world by a function it forgot.
//
// The stubs are functions of the test file's state, called from the state of the
// tool that calls the module: the arguments and the results cross as JSON values,
// and the stub runs under the tool call's context, so that the call's deadline
// stops it too.
type caseStubs struct {
	vm *bindings.VM // the test file's state
	// functions are the modules the case's tools may require (json aside), and
	// the functions of each: what t:stub may replace.
	functions map[string][]string

	mu    sync.Mutex
	stubs map[string]map[string]*lua.LFunction // module -> function -> stub

	// running is held while a stub runs: the test file's state serves one stub at
	// a time, and a stub that calls a tool (which calls a stub) is refused rather
	// than deadlocked.
	running sync.Mutex
}

func newCaseStubs(vm *bindings.VM, modules []*bindings.Module) *caseStubs {
	s := &caseStubs{vm: vm, functions: map[string][]string{}, stubs: map[string]map[string]*lua.LFunction{}}
	for _, m := range modules {
		s.functions[m.Name] = bindings.ModuleFunctions(m)
	}
	return s
}

// luaStub is t:stub(module, fns): from now on in the case, the tools' calls of
// module's functions run those of fns instead; the functions fns leaves out fail.
// A later t:stub of the same module replaces the earlier one.
func (c *caseEnv) luaStub(L *lua.LState) int {
	args := bindings.NewArgs(L, "t:stub")
	module := args.String(2)
	fns := args.Table(3)
	s := c.stubs
	known, ok := s.functions[module]
	if !ok {
		args.Error(2, s.unknownModule(module))
	}
	set := map[string]*lua.LFunction{}
	fns.ForEach(func(k, v lua.LValue) {
		name, isString := k.(lua.LString)
		if !isString {
			args.Error(3, fmt.Sprintf("the stub table's keys name %s's functions; got a key of type %s", module, k.Type()))
		}
		if !slices.Contains(known, string(name)) {
			msg := fmt.Sprintf("the %s module has no function '%s'", module, name)
			if hint := spell.Suggest(string(name), known); hint != "" {
				msg += fmt.Sprintf(" (did you mean '%s'?)", hint)
			}
			args.Error(3, msg+"; its functions: "+strings.Join(known, ", "))
		}
		fn, isFunc := v.(*lua.LFunction)
		if !isFunc {
			args.Error(3, fmt.Sprintf("the stub of %s.%s must be a function, got %s", module, name, v.Type()))
		}
		set[string(name)] = fn
	})
	s.mu.Lock()
	s.stubs[module] = set
	s.mu.Unlock()
	return 0
}

// unknownModule says that no module of the tools is named module.
func (s *caseStubs) unknownModule(module string) string {
	if module == "json" {
		return "json cannot be stubbed: it is part of every state and touches nothing outside it; stub the module that reaches the world"
	}
	names := slices.Sorted(maps.Keys(s.functions))
	msg := fmt.Sprintf("no module '%s' for the tools to require", module)
	if hint := spell.Suggest(module, names); hint != "" {
		msg += fmt.Sprintf(" (did you mean '%s'?)", hint)
	}
	return msg + "; modules: " + strings.Join(names, ", ")
}

// Stub is bindings.Stubs: the case's stub of fn ("http.get"), or nil when its
// module is not stubbed.
func (s *caseStubs) Stub(fn string) lua.LGFunction {
	module, name, _ := strings.Cut(fn, ".")
	s.mu.Lock()
	set, stubbed := s.stubs[module]
	stub := set[name]
	s.mu.Unlock()
	switch {
	case !stubbed:
		return nil
	case stub == nil:
		given := slices.Sorted(maps.Keys(set))
		return func(L *lua.LState) int {
			L.RaiseError("%s is not stubbed: this case stubs the %s module (t:stub) with %s only; add %s to the stub table", fn, module, orNone(given), name)
			return 0
		}
	}
	return func(L *lua.LState) int { return s.run(L, fn, stub) }
}

// orNone renders names as "a, b", or "no function" for none.
func orNone(names []string) string {
	if len(names) == 0 {
		return "no function"
	}
	return strings.Join(names, ", ")
}

// run calls stub, of the test file's state, for the host function fn called on L,
// a tool's state: the arguments go over as JSON values, the results come back so,
// and an error the stub raises is raised in the tool, as the real function's would
// be.
func (s *caseStubs) run(L *lua.LState, fn string, stub *lua.LFunction) int {
	if !s.running.TryLock() {
		L.RaiseError("%s (stub): a stub may not call tools", fn)
	}
	defer s.running.Unlock()
	toolVM, testL := bindings.VMOf(L), s.vm.L
	args := make([]lua.LValue, L.GetTop())
	for i := range args {
		var err error
		if args[i], err = crossValue(toolVM, s.vm, L.Get(i+1)); err != nil {
			bindings.NewArgs(L, fn).Error(i+1, "a stubbed function takes JSON values: "+err.Error())
		}
	}
	// The stub runs under the tool call's context: its deadline stops a stub that
	// hangs, and the call then fails as it would on the real function.
	defer s.underContext(L.Context())()
	base := testL.GetTop()
	defer testL.SetTop(base)
	if err := testL.CallByParam(lua.P{Fn: stub, NRet: lua.MultRet, Protect: true}, args...); err != nil {
		L.Error(s.errorValue(toolVM, err), 0)
	}
	n := testL.GetTop() - base
	for i := 1; i <= n; i++ {
		lv, err := crossValue(s.vm, toolVM, testL.Get(base+i))
		if err != nil {
			L.RaiseError("%s (stub): result #%d is not a JSON value: %v", fn, i, err)
		}
		L.Push(lv)
	}
	return n
}

// crossValue is v, of from's state, as a value of to's: a JSON value, converted,
// or nil, which stays nil (not JSON's null) so that a stub returning nothing, or a
// tool leaving an argument out, reads as it would without the stub.
func crossValue(from, to *bindings.VM, v lua.LValue) (lua.LValue, error) {
	if v == lua.LNil {
		return lua.LNil, nil
	}
	j, err := from.FromLua(v)
	if err != nil {
		return nil, err
	}
	return to.ToLua(j)
}

// errorValue is the error a stub raised, as a value of the tool's state: its
// message, or the value itself when it was a table of JSON values.
func (s *caseStubs) errorValue(toolVM *bindings.VM, err error) lua.LValue {
	ae, ok := err.(*lua.ApiError)
	if !ok {
		return lua.LString(err.Error())
	}
	if str, isString := ae.Object.(lua.LString); isString {
		return str
	}
	if v, err := s.vm.FromLua(ae.Object); err == nil {
		if lv, err := toolVM.ToLua(v); err == nil {
			return lv
		}
	}
	return lua.LString(ae.Object.String())
}

// underContext makes the test file's state run under ctx (nil: as it is) until the
// function it returns is called.
func (s *caseStubs) underContext(ctx context.Context) (restore func()) {
	testL := s.vm.L
	if ctx == nil {
		return func() {}
	}
	outer := testL.Context()
	testL.SetContext(ctx)
	return func() {
		if outer != nil {
			testL.SetContext(outer)
		} else {
			testL.RemoveContext()
		}
	}
}

// callJSON calls fn, a function of the test file's state, under ctx with one JSON
// value, and returns its results as JSON values (nil for nil). A stub's error is
// returned.
func (s *caseStubs) callJSON(ctx context.Context, what string, fn *lua.LFunction, arg any) ([]any, error) {
	if !s.running.TryLock() {
		return nil, fmt.Errorf("%s (stub): a stub may not call tools", what)
	}
	defer s.running.Unlock()
	defer s.underContext(ctx)()
	testL := s.vm.L
	lv, err := s.vm.ToLua(arg)
	if err != nil {
		return nil, err
	}
	base := testL.GetTop()
	defer testL.SetTop(base)
	if err := testL.CallByParam(lua.P{Fn: fn, NRet: lua.MultRet, Protect: true}, lv); err != nil {
		return nil, fmt.Errorf("%s (stub): %w", what, err)
	}
	out := make([]any, testL.GetTop()-base)
	for i := range out {
		if v := testL.Get(base + i + 1); v != lua.LNil {
			if out[i], err = s.vm.FromLua(v); err != nil {
				return nil, fmt.Errorf("%s (stub): result #%d is not a JSON value: %w", what, i+1, err)
			}
		}
	}
	return out, nil
}
