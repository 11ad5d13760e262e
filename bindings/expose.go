package bindings

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"

	lua "github.com/yuin/gopher-lua"
	luar "layeh.com/gopher-luar"
)

// Exposing Go values safely. gopher-luar hands scripts live Go objects: every exported
// field to set, every exported method to call (promoted ones included, a mutex's Lock
// among them), ptr ^ value to overwrite a host struct, channels to block on or close
// (sandbox-reliability.md §3). So only functions go through gopher-luar, which converts
// their arguments from Lua; numeric arguments are checked to fit the parameter first,
// since gopher-luar would silently wrap 300 into an int8, and Lua functions are handed
// over by callback.go, bound to their call. Everything that comes back from Go, and
// every non-function value, reaches Lua as a copy made of plain values and tables: a
// script can read it, never reach the object behind it; a function that comes back is
// exposed as the module's own are.

// exposeValue converts a module value for Lua: a function becomes a checked gopher-luar
// function whose results are copied, anything else a copy.
func (vm *VM) exposeValue(name string, v any, pure bool) lua.LValue {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Func {
		return vm.exposeFunc(name, rv, pure)
	}
	lv, err := vm.goToLua(rv, 0)
	if err != nil {
		panic(fmt.Sprintf("bindings: module value %s: %v", name, err))
	}
	return lv
}

// exposeFunc wraps fn: arguments are range-checked, Lua functions among them bound
// to the call (passFunction), then converted and passed by gopher-luar; results are
// copied into plain Lua values, and functions among them exposed in turn. fn runs with
// the state left free for the Lua functions it was given (stateOwner), unless it
// takes the state itself (a *luar.LState parameter) and reads its arguments as it
// likes. A function of a module that is not pure refuses to run in the load phase.
func (vm *VM) exposeFunc(name string, fn reflect.Value, pure bool) lua.LValue {
	L := vm.L
	ft := fn.Type()
	raw := takesState(ft)
	// results are fn's last results, kept for the functions among them: nothing runs
	// on the state between fn's return and the guard's reading them.
	var results []reflect.Value
	inner := luar.New(L, reflect.MakeFunc(ft, func(args []reflect.Value) []reflect.Value {
		if !raw {
			vm.owner.park()
			defer vm.owner.unpark()
		}
		if ft.IsVariadic() {
			results = fn.CallSlice(args)
		} else {
			results = fn.Call(args)
		}
		return results
	}).Interface())
	return L.NewFunction(vm.guard(name, func(L *lua.LState) int {
		if !pure {
			Require(L, name, AccessRead)
		}
		if vm.stubs != nil {
			if stub := vm.stubs.Stub(name); stub != nil {
				return stub(L)
			}
		}
		for i := 1; i <= L.GetTop() && !raw; i++ {
			var pt reflect.Type
			switch {
			case ft.IsVariadic() && i >= ft.NumIn():
				pt = ft.In(ft.NumIn() - 1).Elem()
			case i <= ft.NumIn():
				pt = ft.In(i - 1)
			default:
				continue
			}
			if msg := numberFits(L.Get(i), pt); msg != "" {
				NewArgs(L, name).Error(i, msg)
			}
			vm.passFunction(L, name, i, pt)
		}
		top := L.GetTop()
		L.Push(inner)
		for i := 1; i <= top; i++ {
			L.Push(L.Get(i))
		}
		L.Call(top, lua.MultRet)
		out := results
		results = nil
		n := L.GetTop() - top
		for i := top + 1; i <= L.GetTop(); i++ {
			switch v := L.Get(i).(type) {
			case *lua.LUserData:
				lv, err := vm.goToLua(reflect.ValueOf(v.Value), 0)
				if err != nil {
					L.RaiseError("%s: result %d: %v", name, i-top, err)
				}
				L.Replace(i, lv)
			case *lua.LFunction:
				if raw || i-top > len(out) {
					break // pushed by a function that takes the state itself
				}
				// A Go function gopher-luar wrapped: its arguments need the same care.
				rv := out[i-top-1]
				for rv.Kind() == reflect.Interface {
					rv = rv.Elem()
				}
				L.Replace(i, vm.exposeFunc(fmt.Sprintf("%s (result %d)", name, i-top), rv, pure))
			}
		}
		return n
	}))
}

// takesState reports whether gopher-luar hands a function of type t the state
// itself (a *luar.LState parameter): such a function reads its arguments and pushes
// its results as it likes.
func takesState(t reflect.Type) bool {
	for i := 0; i < t.NumIn(); i++ {
		if t.In(i) == reflect.TypeFor[*luar.LState]() {
			return true
		}
	}
	return false
}

// numberFits says why the Lua value v cannot be a Go value of type t without losing
// it, or "" when it can (or is not a number bound for a number).
func numberFits(v lua.LValue, t reflect.Type) string {
	n, ok := v.(lua.LNumber)
	if !ok {
		return ""
	}
	f := float64(n)
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		lo, hi := -math.Ldexp(1, t.Bits()-1), math.Ldexp(1, t.Bits()-1)
		if f != math.Trunc(f) || f < lo || f >= hi {
			return fmt.Sprintf("%v does not fit in %s", f, t)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if f != math.Trunc(f) || f < 0 || f >= math.Ldexp(1, t.Bits()) {
			return fmt.Sprintf("%v does not fit in %s", f, t)
		}
	case reflect.Float32:
		if math.Abs(f) > math.MaxFloat32 && !math.IsInf(f, 0) {
			return fmt.Sprintf("%v does not fit in float32", f)
		}
	}
	return ""
}

// goToLua copies a Go value into plain Lua values: numbers, strings, booleans, and
// tables for slices, arrays, maps and structs (exported fields, by their json name
// when they have one). Pointers and interfaces are followed, errors become their
// message, []byte a string. Channels, functions and unsafe pointers are refused.
func (vm *VM) goToLua(v reflect.Value, depth int) (lua.LValue, error) {
	if depth > vm.limits.MaxDepth {
		return nil, fmt.Errorf("nested deeper than %d levels", vm.limits.MaxDepth)
	}
	if !v.IsValid() {
		return lua.LNil, nil
	}
	if v.CanInterface() {
		if err, ok := v.Interface().(error); ok && v.Kind() != reflect.Struct {
			if (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) && v.IsNil() {
				return lua.LNil, nil
			}
			return lua.LString(err.Error()), nil
		}
	}
	switch v.Kind() {
	case reflect.Bool:
		return lua.LBool(v.Bool()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return lua.LNumber(v.Int()), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return lua.LNumber(v.Uint()), nil
	case reflect.Float32, reflect.Float64:
		return lua.LNumber(v.Float()), nil
	case reflect.String:
		return lua.LString(v.String()), nil
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return lua.LNil, nil
		}
		return vm.goToLua(v.Elem(), depth)
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			return lua.LString(v.Bytes()), nil
		}
		t := vm.L.CreateTable(v.Len(), 0)
		for i := 0; i < v.Len(); i++ {
			e, err := vm.goToLua(v.Index(i), depth+1)
			if err != nil {
				return nil, err
			}
			t.RawSetInt(i+1, e)
		}
		t.Metatable = vm.arrayMeta
		return t, nil
	case reflect.Map:
		t := vm.L.CreateTable(0, v.Len())
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
		for _, k := range keys {
			lk, err := vm.goToLua(k, depth+1)
			if err != nil {
				return nil, err
			}
			e, err := vm.goToLua(v.MapIndex(k), depth+1)
			if err != nil {
				return nil, err
			}
			t.RawSet(lk, e)
		}
		return t, nil
	case reflect.Struct:
		t := vm.L.CreateTable(0, v.NumField())
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			name, ok := exposedFieldName(f)
			if !ok {
				continue
			}
			e, err := vm.goToLua(v.Field(i), depth+1)
			if err != nil {
				return nil, fmt.Errorf("field %s: %w", f.Name, err)
			}
			t.RawSetString(name, e)
		}
		return t, nil
	default:
		return nil, fmt.Errorf("a %s cannot be given to Lua", v.Type())
	}
}

// checkExposable reports a module value that can never be copied into Lua: one whose
// type holds a channel, a function or an unsafe pointer (functions at the top level are
// fine: they are called, not copied). Values behind interfaces are checked when copied.
func checkExposable(v any) error {
	t := reflect.TypeOf(v)
	if t == nil || t.Kind() == reflect.Func {
		return nil
	}
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type) error
	walk = func(t reflect.Type) error {
		if seen[t] {
			return nil
		}
		seen[t] = true
		switch t.Kind() {
		case reflect.Chan, reflect.Func, reflect.UnsafePointer:
			return fmt.Errorf("a %s cannot be given to Lua", t)
		case reflect.Pointer, reflect.Slice, reflect.Array:
			return walk(t.Elem())
		case reflect.Map:
			if err := walk(t.Key()); err != nil {
				return err
			}
			return walk(t.Elem())
		case reflect.Struct:
			for i := 0; i < t.NumField(); i++ {
				if _, ok := exposedFieldName(t.Field(i)); ok {
					if err := walk(t.Field(i).Type); err != nil {
						return err
					}
				}
			}
		}
		return nil
	}
	return walk(t)
}

// exposedFieldName is the name a struct field has in Lua: its json name, or its Go
// name; unexported fields, fields tagged json:"-" or luar:"-", and fields of types a
// script must never hold (channels, functions, sync types) are left out.
func exposedFieldName(f reflect.StructField) (string, bool) {
	if !f.IsExported() || f.Tag.Get("luar") == "-" {
		return "", false
	}
	switch f.Type.Kind() {
	case reflect.Chan, reflect.Func, reflect.UnsafePointer:
		return "", false
	}
	if pkg := f.Type.PkgPath(); pkg == "sync" || pkg == "sync/atomic" {
		return "", false
	}
	name := f.Name
	if tag, _, _ := strings.Cut(f.Tag.Get("json"), ","); tag == "-" {
		return "", false
	} else if tag != "" {
		name = tag
	}
	return name, true
}
