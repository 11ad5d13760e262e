package bindings

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/internal/jsonvalue"
)

// A ConversionError says why a value cannot cross between Lua and JSON, and where.
type ConversionError struct {
	// Path locates the value, "$" being the root: "$.items[2].name".
	Path string
	// Reason says what is wrong with it.
	Reason string
}

func (e *ConversionError) Error() string { return e.Path + ": " + e.Reason }

// ToLua converts a JSON value (nil, bool, float64 or another Go number, string, []any,
// map[string]any, json.Number) to Lua. JSON null becomes json.null; arrays carry the
// array marker so that an empty array stays an array on the way back.
func (vm *VM) ToLua(v any) (lua.LValue, error) {
	lv, err := vm.toLua(v, 0)
	if err != nil {
		return nil, err
	}
	return lv, nil
}

// under places an error found in a child value under its parent's key or index:
// paths are built only for errors, on the way back up.
func (e *ConversionError) under(parent string) *ConversionError {
	e.Path = parent + strings.TrimPrefix(e.Path, "$")
	return e
}

// toLua converts v, reporting errors with paths relative to v ("$").
func (vm *VM) toLua(v any, depth int) (lua.LValue, *ConversionError) {
	const path = "$"
	if vm.converted++; vm.converted%4096 == 0 {
		if ctx := vm.L.Context(); ctx != nil && ctx.Err() != nil {
			return nil, &ConversionError{path, "stopped: " + describeContextErr(ctx.Err())}
		}
	}
	switch v.(type) {
	case []any, map[string]any:
		// Depth counts containers only, as FromLua does.
		if depth > vm.limits.MaxDepth {
			return nil, &ConversionError{path, fmt.Sprintf("nested deeper than %d levels", vm.limits.MaxDepth)}
		}
	}
	switch x := v.(type) {
	case nil:
		return vm.null, nil
	case bool:
		return lua.LBool(x), nil
	case string:
		return lua.LString(x), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, &ConversionError{path, "NaN and infinity are not JSON numbers"}
		}
		return lua.LNumber(x), nil
	case int:
		return lua.LNumber(x), nil
	case int64:
		return lua.LNumber(x), nil
	case json.Number:
		f, err := jsonvalue.Normalize(x, path)
		if err != nil {
			return nil, &ConversionError{path, strings.TrimPrefix(err.Error(), path+": ")}
		}
		return lua.LNumber(f.(float64)), nil
	case []any:
		t := vm.L.CreateTable(len(x), 0)
		for i, e := range x {
			lv, err := vm.toLua(e, depth+1)
			if err != nil {
				return nil, err.under(jsonvalue.JoinIndex(path, i))
			}
			t.RawSetInt(i+1, lv)
		}
		t.Metatable = vm.arrayMeta
		return t, nil
	case map[string]any:
		t := vm.L.CreateTable(0, len(x))
		for k, e := range x {
			lv, err := vm.toLua(e, depth+1)
			if err != nil {
				return nil, err.under(jsonvalue.JoinKey(path, k))
			}
			t.RawSetString(k, lv)
		}
		return t, nil
	default:
		return nil, &ConversionError{path, fmt.Sprintf("%T is not a JSON value", v)}
	}
}

// FromLua converts a Lua value to the JSON value model. nil and json.null become nil.
// A table is an array when it carries the array marker or its keys are exactly 1..n;
// it is an object when every key is a string; an empty unmarked table is an object.
// Anything else (mixed or sparse keys, functions, userdata, cycles, NaN, nesting past
// the depth limit) is a *ConversionError naming the path.
func (vm *VM) FromLua(v lua.LValue) (any, error) {
	if t, ok := v.(*lua.LTable); ok {
		budget := maxConvertedValues
		return plainValue(t, "$", 0, vm.limits.MaxDepth, map[*lua.LTable]bool{}, vm, &budget)
	}
	return scalarValue(v, "$", vm)
}

// maxConvertedValues bounds how many values one conversion from Lua produces: a
// result of millions of values would take seconds and gigabytes to encode, past any
// deadline, for nothing a model can read.
const maxConvertedValues = 1 << 20

func scalarValue(v lua.LValue, path string, vm *VM) (any, error) {
	switch x := v.(type) {
	case *lua.LNilType:
		return nil, nil
	case lua.LBool:
		return bool(x), nil
	case lua.LString:
		return string(x), nil
	case lua.LNumber:
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, &ConversionError{path, "NaN and infinity cannot be encoded as JSON"}
		}
		return f, nil
	case *lua.LUserData:
		if vm != nil && x == vm.null {
			return nil, nil
		}
	}
	return nil, &ConversionError{path, "a " + v.Type().String() + " value cannot be converted to JSON"}
}

// plainValue converts a table. vm may be nil (error rendering), in which case
// json.null and the array marker are not recognised.
func plainValue(t *lua.LTable, path string, depth, maxDepth int, visiting map[*lua.LTable]bool, vm *VM, budget *int) (any, error) {
	if depth > maxDepth {
		return nil, &ConversionError{path, fmt.Sprintf("nested deeper than %d levels", maxDepth)}
	}
	if visiting[t] {
		return nil, &ConversionError{path, "table contains itself (cycle)"}
	}
	visiting[t] = true
	defer delete(visiting, t)
	if *budget -= t.Len() + 1; *budget < 0 {
		return nil, &ConversionError{path, fmt.Sprintf("the value has more than %d elements", maxConvertedValues)}
	}

	convert := func(v lua.LValue, p string) (any, error) {
		if sub, ok := v.(*lua.LTable); ok {
			return plainValue(sub, p, depth+1, maxDepth, visiting, vm, budget)
		}
		return scalarValue(v, p, vm)
	}

	var strKeys []string
	var numKeys []int
	bad := ""
	t.ForEach(func(k, _ lua.LValue) {
		switch kk := k.(type) {
		case lua.LString:
			strKeys = append(strKeys, string(kk))
		case lua.LNumber:
			f := float64(kk)
			if f >= 1 && f == math.Trunc(f) && f <= math.MaxInt32 {
				numKeys = append(numKeys, int(f))
			} else if bad == "" {
				bad = fmt.Sprintf("key %s is not a positive integer index", kk.String())
			}
		default:
			if bad == "" {
				bad = "key of type " + k.Type().String() + " cannot be converted to JSON"
			}
		}
	})
	if bad != "" {
		return nil, &ConversionError{path, bad}
	}
	isArray := vm != nil && t.Metatable == vm.arrayMeta
	if len(strKeys) > 0 && (len(numKeys) > 0 || isArray) {
		return nil, &ConversionError{path, "table mixes array indices and string keys"}
	}
	if len(strKeys) > 0 || (len(numKeys) == 0 && !isArray) {
		obj := make(map[string]any, len(strKeys))
		sort.Strings(strKeys)
		for _, k := range strKeys {
			e, err := convert(t.RawGetString(k), jsonvalue.JoinKey(path, k))
			if err != nil {
				return nil, err
			}
			obj[k] = e
		}
		return obj, nil
	}
	sort.Ints(numKeys)
	for i, k := range numKeys {
		if k != i+1 {
			return nil, &ConversionError{path, fmt.Sprintf("array is sparse: index %d is missing", i+1)}
		}
	}
	arr := make([]any, len(numKeys))
	for i := range numKeys {
		e, err := convert(t.RawGetInt(i+1), jsonvalue.JoinIndex(path, i))
		if err != nil {
			return nil, err
		}
		arr[i] = e
	}
	return arr, nil
}

func encodeJSON(v any) ([]byte, error) { return jsonvalue.Encode(v) }

// Mirrors reports whether lv is, in every part, what ToLua(v) builds: the same
// scalars, json.null for nil, tables holding exactly the keys of v's objects and
// arrays, an object's with no metatable and an array's with the array marker. A host
// that hands one converted value to several functions in turn checks with it that
// none changed the value for the next, and converts afresh when one did. Nothing is
// allocated but a key's box for each table key.
func (vm *VM) Mirrors(lv lua.LValue, v any) bool { return vm.mirrors(lv, v, 0) }

func (vm *VM) mirrors(lv lua.LValue, v any, depth int) bool {
	switch x := v.(type) {
	case nil:
		return lv == vm.null
	case bool:
		b, ok := lv.(lua.LBool)
		return ok && bool(b) == x
	case string:
		s, ok := lv.(lua.LString)
		return ok && string(s) == x
	case float64:
		n, ok := lv.(lua.LNumber)
		return ok && float64(n) == x
	case int:
		n, ok := lv.(lua.LNumber)
		return ok && n == lua.LNumber(x)
	case int64:
		n, ok := lv.(lua.LNumber)
		return ok && n == lua.LNumber(x)
	case json.Number:
		n, ok := lv.(lua.LNumber)
		f, err := jsonvalue.Normalize(x, "$")
		return ok && err == nil && float64(n) == f.(float64)
	case []any:
		t, ok := lv.(*lua.LTable)
		if !ok || depth > vm.limits.MaxDepth || t.Metatable != vm.arrayMeta || countKeys(t) != len(x) {
			return false
		}
		for i, e := range x {
			if !vm.mirrors(t.RawGetInt(i+1), e, depth+1) {
				return false
			}
		}
		return true
	case map[string]any:
		t, ok := lv.(*lua.LTable)
		if !ok || depth > vm.limits.MaxDepth || t.Metatable != lua.LNil || countKeys(t) != len(x) {
			return false
		}
		// As many keys as x has, every one of x's among them: no other.
		for k, e := range x {
			if !vm.mirrors(t.RawGetString(k), e, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

// countKeys counts the keys of t whose values are not nil.
func countKeys(t *lua.LTable) int {
	n := 0
	t.ForEach(func(lua.LValue, lua.LValue) { n++ })
	return n
}
