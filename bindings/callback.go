package bindings

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"

	lua "github.com/yuin/gopher-lua"
)

// Lua functions handed to Go. A module's Go function that takes a function (or an
// any) is given a Lua function as a Go function that runs it on the state it came
// from. A host that keeps it and calls it after the call ended would run Lua on a
// state back in its pool, or in the hands of another call, at the same time as that
// call: gopher-luar's own conversion does exactly that. So a Lua function reaches Go
// only through callback, as a function that runs only while the call that handed it
// over still runs and waits in a host function, one at a time, and is refused
// otherwise (a CallbackError). Its arguments reach Lua as copies, as every Go value
// does; its results come back as JSON values converted to the result types. A
// function inside a table is not handed over at all: the table is refused.

// A CallbackError is why a Lua function handed to a Go function did not run, or why
// it failed. The Go function gets it as its error result when its type has one as
// the last result; otherwise calling it panics with the CallbackError.
type CallbackError struct {
	// Func is the host function the Lua function was handed to, as in "events.on".
	Func string
	// Err says why.
	Err error
}

func (e *CallbackError) Error() string {
	return fmt.Sprintf("the Lua function handed to %s: %v", e.Func, e.Err)
}

// Unwrap returns Err.
func (e *CallbackError) Unwrap() error { return e.Err }

// The reasons a Lua function handed to Go is refused.
var (
	// ErrCallbackEnded refuses a Lua function whose call has ended: its state may be
	// back in its pool, or running another call.
	ErrCallbackEnded = errors.New("called after its call ended: a Lua function handed to Go runs only while the call that handed it over runs")
	// ErrCallbackBusy refuses a Lua function called while its state runs Lua: from
	// another goroutine while the script runs, or beside another such function.
	ErrCallbackBusy = errors.New("called while its call's Lua code runs: a Lua function handed to Go runs only while the call waits in a host function, one at a time")
)

// stateOwner says who may run Lua on a VM's state: the call running on it (its
// number), and whether that call waits in a host function, which leaves the state
// free for a Lua function handed to Go. Its methods are safe for concurrent use: a
// host may call a Lua function from any goroutine.
type stateOwner struct {
	mu   sync.Mutex
	cond *sync.Cond
	// call is the number of the outermost call running, 0 when none; calls counts
	// the calls begun.
	call, calls uint64
	// free is set while the call waits in a host function.
	free bool
}

// begin marks the start of an outermost call.
func (o *stateOwner) begin() {
	o.mu.Lock()
	if o.cond == nil {
		o.cond = sync.NewCond(&o.mu)
	}
	o.calls++
	o.call, o.free = o.calls, false
	o.mu.Unlock()
}

// end marks the end of the outermost call: no Lua function it handed out runs again.
func (o *stateOwner) end() {
	o.mu.Lock()
	o.call, o.free = 0, false
	o.mu.Unlock()
}

// current is the number of the call running.
func (o *stateOwner) current() uint64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.call
}

// park leaves the state free while a host function runs.
func (o *stateOwner) park() {
	o.mu.Lock()
	o.free = true
	o.mu.Unlock()
}

// unpark takes the state back when the host function returns, once a Lua function
// another goroutine runs on it has finished.
func (o *stateOwner) unpark() {
	o.mu.Lock()
	for !o.free {
		o.cond.Wait()
	}
	o.free = false
	o.mu.Unlock()
}

// take gives the state to a Lua function handed out by the call numbered call, or
// says why it may not run.
func (o *stateOwner) take(call uint64) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch {
	case o.call == 0 || o.call != call:
		return ErrCallbackEnded
	case !o.free:
		return ErrCallbackBusy
	}
	o.free = false
	return nil
}

// release gives the state back after take, or after a nested call took it.
func (o *stateOwner) release() {
	o.mu.Lock()
	o.free = true
	o.cond.Broadcast()
	o.mu.Unlock()
}

// takeNested takes the state for a call made inside a call, when the state is free
// (a host function makes the call); it reports whether it took it, for release. A
// nested call made from a Funcs function runs as the call that made it: the state is
// its already.
func (o *stateOwner) takeNested() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.free {
		return false
	}
	o.free = false
	return true
}

var (
	anyType     = reflect.TypeFor[any]()
	errorType   = reflect.TypeFor[error]()
	anyFuncType = reflect.TypeFor[func(...any) []any]()
)

// passFunction prepares argument i of the host function name, whose Go parameter
// type is t, before gopher-luar converts it: a Lua function becomes callback's Go
// function, and a table holding a function, bound for a type that could take it, is
// an argument error.
func (vm *VM) passFunction(L *lua.LState, name string, i int, t reflect.Type) {
	switch v := L.Get(i).(type) {
	case *lua.LFunction:
		ft := t
		switch {
		case t == anyType:
			ft = anyFuncType
		case t.Kind() != reflect.Func:
			return // gopher-luar refuses it
		}
		ud := L.NewUserData()
		ud.Value = vm.callback(name, v, ft).Interface()
		L.Replace(i, ud)
	case *lua.LTable:
		if holdsFunctions(t) && hasFunction(v) {
			NewArgs(L, name).Error(i, "a function inside a table cannot be handed to Go; pass it as an argument of its own")
		}
	}
}

// holdsFunctions reports whether gopher-luar could make a Go function inside a
// value of type t converted from a table: t holds a function type or an empty
// interface.
func holdsFunctions(t reflect.Type) bool {
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type) bool
	walk = func(t reflect.Type) bool {
		if seen[t] {
			return false
		}
		seen[t] = true
		switch t.Kind() {
		case reflect.Func:
			return true
		case reflect.Interface:
			return t.NumMethod() == 0
		case reflect.Pointer, reflect.Slice, reflect.Array:
			return walk(t.Elem())
		case reflect.Map:
			return walk(t.Key()) || walk(t.Elem())
		case reflect.Struct:
			for i := 0; i < t.NumField(); i++ {
				if t.Field(i).IsExported() && walk(t.Field(i).Type) {
					return true
				}
			}
		}
		return false
	}
	return walk(t)
}

// hasFunction reports whether t, or a table inside it, holds a function as a key
// or a value.
func hasFunction(t *lua.LTable) bool {
	seen := map[*lua.LTable]bool{t: true}
	todo := []*lua.LTable{t}
	found := false
	for len(todo) > 0 && !found {
		next := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		next.ForEach(func(k, v lua.LValue) {
			for _, x := range [2]lua.LValue{k, v} {
				switch x := x.(type) {
				case *lua.LFunction:
					found = true
				case *lua.LTable:
					if !seen[x] {
						seen[x] = true
						todo = append(todo, x)
					}
				}
			}
		})
	}
	return found
}

// callback returns fn as a Go function of type t for the host function name: it
// runs fn while the call that made it runs and waits in a host function, and is
// refused otherwise.
func (vm *VM) callback(name string, fn *lua.LFunction, t reflect.Type) reflect.Value {
	call := vm.owner.current()
	return reflect.MakeFunc(t, func(args []reflect.Value) []reflect.Value {
		if err := vm.owner.take(call); err != nil {
			return failed(t, &CallbackError{Func: name, Err: err})
		}
		defer vm.owner.release()
		return vm.runCallback(name, fn, t, args)
	})
}

// runCallback runs fn with args on a thread of the state, which the caller holds,
// and converts its results to t's.
func (vm *VM) runCallback(name string, fn *lua.LFunction, t reflect.Type, args []reflect.Value) []reflect.Value {
	if t.IsVariadic() && len(args) > 0 {
		last := args[len(args)-1]
		args = args[:len(args)-1]
		for i := 0; i < last.Len(); i++ {
			args = append(args, last.Index(i))
		}
	}
	thread, cancel := vm.L.NewThread()
	defer thread.Close()
	if cancel != nil {
		defer cancel()
	}
	thread.Push(fn)
	for i, a := range args {
		lv, err := vm.goToLua(a, 0)
		if err != nil {
			return failed(t, &CallbackError{Func: name, Err: fmt.Errorf("argument %d: %w", i+1, err)})
		}
		thread.Push(lv)
	}
	if err := thread.PCall(len(args), lua.MultRet, vm.silent); err != nil {
		var apiErr *lua.ApiError
		if errors.As(err, &apiErr) && !hasErrorResult(t) {
			// As a Lua error raised in the script's own code: a script's pcall
			// around the host function catches it.
			panic(apiErr)
		}
		return failed(t, &CallbackError{Func: name, Err: err})
	}
	got := make([]lua.LValue, thread.GetTop())
	for i := range got {
		got[i] = thread.Get(i + 1)
	}
	if t == anyFuncType {
		out := make([]any, len(got))
		for i, lv := range got {
			v, err := vm.FromLua(lv)
			if err != nil {
				return failed(t, &CallbackError{Func: name, Err: fmt.Errorf("result %d: %w", i+1, err)})
			}
			out[i] = v
		}
		return []reflect.Value{reflect.ValueOf(out)}
	}
	out := make([]reflect.Value, t.NumOut())
	for i := range out {
		lv := lua.LValue(lua.LNil)
		if i < len(got) {
			lv = got[i]
		}
		v, err := vm.goResult(lv, t.Out(i))
		if err != nil {
			return failed(t, &CallbackError{Func: name, Err: fmt.Errorf("result %d: %w", i+1, err)})
		}
		out[i] = v
	}
	return out
}

// goResult converts a result of a Lua function handed to Go to the Go type t: nil is
// the zero value, a string is an error for error, and anything else goes through its
// JSON value.
func (vm *VM) goResult(lv lua.LValue, t reflect.Type) (reflect.Value, error) {
	v, err := vm.FromLua(lv)
	switch {
	case err != nil:
		return reflect.Value{}, err
	case v == nil:
		return reflect.Zero(t), nil
	case t == errorType:
		if s, ok := v.(string); ok {
			return reflect.ValueOf(errors.New(s)), nil
		}
		return reflect.Value{}, fmt.Errorf("a %T cannot be an error", v)
	}
	data, err := json.Marshal(v)
	if err != nil {
		return reflect.Value{}, err
	}
	p := reflect.New(t)
	if err := json.Unmarshal(data, p.Interface()); err != nil {
		return reflect.Value{}, fmt.Errorf("cannot be a %s: %v", t, err)
	}
	return p.Elem(), nil
}

// hasErrorResult reports whether a function of type t returns an error last.
func hasErrorResult(t reflect.Type) bool {
	return t.NumOut() > 0 && t.Out(t.NumOut()-1) == errorType
}

// failed returns err as the error result of a function of type t, with zero values
// for the rest, or panics with it when t has no error result.
func failed(t reflect.Type, err *CallbackError) []reflect.Value {
	if !hasErrorResult(t) {
		panic(err)
	}
	out := make([]reflect.Value, t.NumOut())
	for i := range out {
		out[i] = reflect.Zero(t.Out(i))
	}
	out[len(out)-1] = reflect.ValueOf(error(err))
	return out
}
