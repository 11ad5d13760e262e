package bindings

import (
	"sort"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings/luapattern"
)

// Bounded library functions. gopher-lua runs its library functions in Go without
// looking at the context, so one call can allocate gigabytes or run for hours before
// the deadline is checked again (sandbox-reliability.md §2.2). These replacements
// keep the standard behaviour and refuse, with an error, work beyond the limits:
// a string result over MaxStringBytes, an unpack over MaxUnpack values, a format
// width or precision over two digits (Lua 5.1's own rule), more than MaxCoroutines
// coroutines in one call. Long loops check the context as they go.

// boundLibraries installs the bounded functions into the library tables, before they
// are locked.
func (vm *VM) boundLibraries() {
	L := vm.L
	g := L.G.Global
	str := g.RawGetString("string").(*lua.LTable)
	str.RawSetString("rep", L.NewFunction(vm.strRep))
	// gopher-lua's pattern functions cannot be interrupted: one backtracking pattern
	// runs for hours past any deadline. These count their steps and watch the context.
	matcher := luapattern.Matcher{Limits: luapattern.Limits{
		MaxSteps:   vm.limits.MaxPatternSteps,
		MaxSubject: vm.limits.MaxStringBytes,
		MaxResult:  vm.limits.MaxStringBytes,
	}}
	for name, fn := range luapattern.StringFunctions(matcher) {
		str.RawSetString(name, L.NewFunction(fn))
	}
	format := str.RawGetString("format").(*lua.LFunction).GFunction
	str.RawSetString("format", L.NewFunction(func(L *lua.LState) int {
		vm.checkFormat(L)
		n := format(L)
		if s, ok := L.Get(-1).(lua.LString); ok && len(s) > vm.limits.MaxStringBytes {
			vm.tooLong(L, "string.format", int64(len(s)))
		}
		return n
	}))
	g.RawSetString(concatName, L.NewFunction(vm.concat)) // what '..' compiles to (concat.go)
	tbl := g.RawGetString("table").(*lua.LTable)
	tbl.RawSetString("concat", L.NewFunction(vm.tableConcat))
	tbl.RawSetString("sort", L.NewFunction(tableSort))
	unpack := g.RawGetString("unpack").(*lua.LFunction).GFunction
	g.RawSetString("unpack", L.NewFunction(func(L *lua.LState) int {
		t := L.CheckTable(1)
		vm.checkResultCount(L, "unpack", L.OptInt(2, 1), L.OptInt(3, t.Len()))
		return unpack(L)
	}))
	strByte := str.RawGetString("byte").(*lua.LFunction).GFunction
	str.RawSetString("byte", L.NewFunction(func(L *lua.LState) int {
		s := L.CheckString(1)
		pos := func(p int) int { // Lua 5.1's posrelat, clamped to the string
			if p < 0 {
				p = len(s) + p + 1
			}
			return min(max(p, 1), len(s)+1)
		}
		i := L.OptInt(2, 1)
		vm.checkResultCount(L, "string.byte", pos(i), min(pos(L.OptInt(3, i)), len(s)))
		return strByte(L)
	}))
	str.RawSetString("char", L.NewFunction(func(L *lua.LState) int {
		a := NewArgs(L, "string.char")
		b := make([]byte, L.GetTop())
		for n := 1; n <= L.GetTop(); n++ {
			c := a.Int(n)
			if c < 0 || c > 255 {
				a.Error(n, "value out of range")
			}
			b[n-1] = byte(c)
		}
		L.Push(lua.LString(b))
		return 1
	}))
	osTable := g.RawGetString("os").(*lua.LTable)
	date := osTable.RawGetString("date").(*lua.LFunction).GFunction
	osTable.RawSetString("date", L.NewFunction(func(L *lua.LState) int {
		// A directive expands to at most a few dozen bytes (%c: 24).
		if f := L.OptString(1, "%c"); int64(len(f))*32 > int64(vm.limits.MaxStringBytes) {
			vm.tooLong(L, "os.date", int64(len(f))*32)
		}
		return date(L)
	}))
	vm.boundCoroutines(g.RawGetString("coroutine").(*lua.LTable))
}

// checkResultCount refuses a function returning the values i..j when they are more
// than MaxUnpack, computing the count without overflow.
func (vm *VM) checkResultCount(L *lua.LState, fn string, i, j int) {
	if j < i {
		return
	}
	if n := uint64(j) - uint64(i) + 1; n > uint64(vm.limits.MaxUnpack) || n == 0 {
		L.RaiseError("%s: %d values is over the limit of %d", fn, n, vm.limits.MaxUnpack)
	}
}

// tooLong raises the error for a string result over the limit.
func (vm *VM) tooLong(L *lua.LState, fn string, n int64) {
	L.RaiseError("%s: the result would be %d bytes, over the limit of %d", fn, n, vm.limits.MaxStringBytes)
}

func (vm *VM) strRep(L *lua.LState) int {
	s := L.CheckString(1)
	n := L.CheckInt(2)
	if n <= 0 || s == "" {
		L.Push(lua.LString(""))
		return 1
	}
	if total := int64(len(s)) * int64(n); total > int64(vm.limits.MaxStringBytes) || total/int64(n) != int64(len(s)) {
		vm.tooLong(L, "string.rep", total)
	}
	L.Push(lua.LString(strings.Repeat(s, n)))
	return 1
}

// checkFormat refuses a format whose result could pass the string limit before it is
// built: widths and precisions have at most two digits, as in Lua 5.1, so one directive
// makes at most about 420 bytes (%99.99f of 1e308) plus its string argument.
func (vm *VM) checkFormat(L *lua.LState) {
	f := L.CheckString(1)
	bound := int64(0)
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			bound++
			continue
		}
		i++
		if i < len(f) && f[i] == '%' {
			bound++
			continue
		}
		for i < len(f) && strings.IndexByte("-+ #0", f[i]) >= 0 {
			i++
		}
		digits := 0
		for i < len(f) && f[i] >= '0' && f[i] <= '9' {
			i++
			digits++
		}
		if i < len(f) && f[i] == '.' {
			i++
			prec := 0
			for i < len(f) && f[i] >= '0' && f[i] <= '9' {
				i++
				prec++
			}
			if prec > 2 {
				digits = 3
			}
		}
		if digits > 2 {
			L.RaiseError("invalid format (width or precision too long)")
		}
		bound += 420
	}
	for i := 2; i <= L.GetTop(); i++ {
		if s, ok := L.Get(i).(lua.LString); ok {
			bound += int64(len(s))
		}
	}
	if bound > int64(vm.limits.MaxStringBytes) {
		vm.tooLong(L, "string.format", bound)
	}
}

// tableConcat is table.concat with the string limit, built in one buffer instead of
// on the registry (where a large table overflows it).
func (vm *VM) tableConcat(L *lua.LState) int {
	t := L.CheckTable(1)
	sep := L.OptString(2, "")
	n := t.Len()
	i := L.OptInt(3, 1)
	j := L.OptInt(4, n)
	if L.GetTop() == 3 && (i > n || i < 1) {
		L.Push(lua.LString(""))
		return 1
	}
	i, j = max(min(i, n), 1), min(j, n)
	var b strings.Builder
	limit := vm.limits.MaxStringBytes
	for k := i; k <= j; k++ {
		if (k-i)%4096 == 4095 {
			stopIfDone(L)
		}
		v := t.RawGetInt(k)
		if !lua.LVCanConvToString(v) {
			L.RaiseError("invalid value (%s) at index %d in table for concat", v.Type().String(), k)
		}
		s := lua.LVAsString(v)
		if b.Len()+len(s)+len(sep) > limit {
			vm.tooLong(L, "table.concat", int64(b.Len()+len(s)+len(sep)))
		}
		b.WriteString(s)
		if k != j {
			b.WriteString(sep)
		}
	}
	L.Push(lua.LString(b.String()))
	return 1
}

// stopIfDone raises the error that stops a call whose context is done: long loops of
// library functions call it as they go, since gopher-lua looks at the context only
// between instructions.
func stopIfDone(L *lua.LState) {
	if ctx := L.Context(); ctx != nil && ctx.Err() != nil {
		L.RaiseError("%s", ctx.Err().Error())
	}
}

// tableSort is table.sort, stopped by the context: gopher-lua's sorts millions of
// values in one step (seconds past any deadline) when there is no comparator, and a
// Lua comparator is interrupted at its own instructions only. It sorts the array part
// (1 to #t) by the comparator, or by <, raising the errors Lua raises for values
// that cannot be compared.
func tableSort(L *lua.LState) int {
	t := L.CheckTable(1)
	var less *lua.LFunction
	if L.GetTop() > 1 {
		less = L.CheckFunction(2)
	}
	values := make([]lua.LValue, t.Len())
	for i := range values {
		values[i] = t.RawGetInt(i + 1)
	}
	compared := 0
	sort.Slice(values, func(i, j int) bool {
		if compared++; compared%1024 == 0 {
			stopIfDone(L)
		}
		if less == nil {
			return L.LessThan(values[i], values[j])
		}
		L.Push(less)
		L.Push(values[i])
		L.Push(values[j])
		L.Call(2, 1)
		ok := lua.LVAsBool(L.Get(-1))
		L.Pop(1)
		return ok
	})
	for i, v := range values {
		t.RawSetInt(i+1, v)
	}
	return 0
}

// boundCoroutines makes coroutines obey the current call: a coroutine resumed in a
// call runs under that call's context, whenever it was created (gopher-lua gives a
// coroutine the context of the call that created it, so one kept from an earlier call
// would escape the deadline), and one call creates at most MaxCoroutines.
func (vm *VM) boundCoroutines(co *lua.LTable) {
	L := vm.L
	create := co.RawGetString("create").(*lua.LFunction).GFunction
	resume := co.RawGetString("resume").(*lua.LFunction).GFunction
	count := func(L *lua.LState) {
		vm.coroutinesEver++
		if c := vm.call; c != nil {
			c.coroutines++
			if c.coroutines > vm.limits.MaxCoroutines {
				L.RaiseError("coroutine.create: more than %d coroutines in one call", vm.limits.MaxCoroutines)
			}
		}
	}
	bind := func(L *lua.LState, th *lua.LState) {
		if ctx := L.Context(); ctx != nil {
			th.SetContext(ctx)
		}
	}
	co.RawSetString("create", L.NewFunction(func(L *lua.LState) int {
		count(L)
		return create(L)
	}))
	yield := co.RawGetString("yield").(*lua.LFunction).GFunction
	co.RawSetString("yield", L.NewFunction(func(L *lua.LState) int {
		if vm.protected[L] > 0 {
			L.RaiseError("attempt to yield across a pcall (Lua 5.1 cannot resume into one)")
		}
		return yield(L)
	}))
	co.RawSetString("resume", L.NewFunction(func(L *lua.LState) int {
		bind(L, L.CheckThread(1))
		return resume(L)
	}))
	co.RawSetString("wrap", L.NewFunction(func(L *lua.LState) int {
		L.CheckFunction(1)
		count(L)
		create(L)
		th := L.CheckThread(L.GetTop())
		L.Pop(1)
		L.Push(L.NewFunction(func(L *lua.LState) int {
			bind(L, th)
			L.Insert(th, 1)
			top := L.GetTop()
			n := resume(L)
			// resume left ok and the results above top; wrap raises on failure
			// and returns the results without ok, as Lua's wrap does.
			if n > 0 && L.Get(top+1) == lua.LFalse {
				L.Error(L.Get(top+2), 0)
			}
			return n - 1
		}))
		return 1
	}))
}
