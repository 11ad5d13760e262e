package bindings

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/luatool/luatool/internal/spell"

	lua "github.com/yuin/gopher-lua"
)

// Args checks the arguments of a host function with the standard wording, naming the
// function as scripts call it:
//
//	bad argument #1 to 'fs.read' (string expected, got nil)
//
// Every method raises a Lua error (it does not return) when the argument is wrong.
type Args struct {
	L *lua.LState
	// Fn is the qualified function name, as in "fs.read".
	Fn string
}

// NewArgs returns the argument checker for the host function fn.
func NewArgs(L *lua.LState, fn string) Args { return Args{L: L, Fn: fn} }

// Error raises "bad argument #n to 'fn' (msg)".
func (a Args) Error(n int, msg string) {
	a.L.RaiseError("bad argument #%d to '%s' (%s)", n, a.Fn, msg)
}

func (a Args) typeError(n int, want string) {
	a.Error(n, fmt.Sprintf("%s expected, got %s", want, a.L.Get(n).Type().String()))
}

// String returns argument n, which must be a string.
func (a Args) String(n int) string {
	s, ok := a.L.Get(n).(lua.LString)
	if !ok {
		a.typeError(n, "string")
	}
	return string(s)
}

// OptString returns argument n, or def when it is nil.
func (a Args) OptString(n int, def string) string {
	if a.L.Get(n) == lua.LNil {
		return def
	}
	return a.String(n)
}

// Int returns argument n, which must be a whole number within the int range.
func (a Args) Int(n int) int {
	v, ok := a.L.Get(n).(lua.LNumber)
	if !ok {
		a.typeError(n, "number")
	}
	return a.whole(n, float64(v))
}

func (a Args) whole(n int, f float64) int {
	if f != math.Trunc(f) || math.IsInf(f, 0) || math.IsNaN(f) || math.Abs(f) > 1<<53 {
		a.Error(n, fmt.Sprintf("whole number expected, got %v", f))
	}
	return int(f)
}

// OptInt returns argument n, or def when it is nil.
func (a Args) OptInt(n int, def int) int {
	if a.L.Get(n) == lua.LNil {
		return def
	}
	return a.Int(n)
}

// Number returns argument n, which must be a number, NaN and the infinities
// included.
func (a Args) Number(n int) float64 {
	v, ok := a.L.Get(n).(lua.LNumber)
	if !ok {
		a.typeError(n, "number")
	}
	return float64(v)
}

// Table returns argument n, which must be a table.
func (a Args) Table(n int) *lua.LTable {
	t, ok := a.L.Get(n).(*lua.LTable)
	if !ok {
		a.typeError(n, "table")
	}
	return t
}

// Options is an options table: argument n may be nil or a table whose keys are all
// among the allowed names. An unknown key is an argument error with a "did you mean"
// hint and the list of the options, so that a misspelt option is never silently
// ignored:
//
//	bad argument #2 to 'glob.find' (unknown option 'limt', did you mean 'limit'? options: limit, path, reverse, sort)
type Options struct {
	args Args
	n    int
	t    *lua.LTable
}

// Options checks argument n as an options table with the allowed keys.
func (a Args) Options(n int, allowed ...string) Options {
	if a.L.Get(n) == lua.LNil {
		return Options{args: a, n: n}
	}
	t := a.Table(n)
	t.ForEach(func(k, _ lua.LValue) {
		key, ok := k.(lua.LString)
		if !ok {
			a.Error(n, "option names must be strings")
		}
		for _, name := range allowed {
			if string(key) == name {
				return
			}
		}
		hint := ";"
		if s := spell.Suggest(string(key), allowed); s != "" {
			hint = fmt.Sprintf(", did you mean '%s'?", s)
		}
		a.Error(n, fmt.Sprintf("unknown option '%s'%s %s", string(key), hint, optionList(allowed)))
	})
	return Options{args: a, n: n, t: t}
}

// optionList is the end of an unknown-option error: every key accepted, sorted, so
// that a script's author (and the check of the type definitions) sees them all.
func optionList(allowed []string) string {
	if len(allowed) == 0 {
		return "no options are accepted"
	}
	sorted := slices.Sorted(slices.Values(allowed))
	return "options: " + strings.Join(sorted, ", ")
}

func (o Options) get(key string) lua.LValue {
	if o.t == nil {
		return lua.LNil
	}
	return o.t.RawGetString(key)
}

func (o Options) wrong(key, want string, got lua.LValue) {
	o.args.Error(o.n, fmt.Sprintf("option '%s': %s expected, got %s", key, want, got.Type().String()))
}

// String returns option key, or def when absent.
func (o Options) String(key, def string) string {
	switch v := o.get(key).(type) {
	case *lua.LNilType:
		return def
	case lua.LString:
		return string(v)
	default:
		o.wrong(key, "string", v)
		return ""
	}
}

// Int returns option key, or def when absent.
func (o Options) Int(key string, def int) int {
	switch v := o.get(key).(type) {
	case *lua.LNilType:
		return def
	case lua.LNumber:
		f := float64(v)
		if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			o.args.Error(o.n, fmt.Sprintf("option '%s': whole number expected, got %v", key, f))
		}
		return int(f)
	default:
		o.wrong(key, "number", v)
		return 0
	}
}

// Bool returns option key, or def when absent.
func (o Options) Bool(key string, def bool) bool {
	switch v := o.get(key).(type) {
	case *lua.LNilType:
		return def
	case lua.LBool:
		return bool(v)
	default:
		o.wrong(key, "boolean", v)
		return false
	}
}

// Table returns option key, which must be a table, or nil when absent.
func (o Options) Table(key string) *lua.LTable {
	switch v := o.get(key).(type) {
	case *lua.LNilType:
		return nil
	case *lua.LTable:
		return v
	default:
		o.wrong(key, "table", v)
		return nil
	}
}

// Value returns option key as it is, of any type, and whether it is given.
func (o Options) Value(key string) (lua.LValue, bool) {
	v := o.get(key)
	return v, v != lua.LNil
}
